"""The parent's judge of timed outputs where they lie: in the worker's device memory.

A bench-size output runs to gigabytes. Sending it to the parent as a file cost a worker about half a
second per gigabyte, with the device idle. Instead the worker sends a CUDA IPC handle to its kept copy
of the output; the parent maps it into a context of its own and compares it there against the
expected values, which it copied to the device once per task. The verdict stays the parent's: the
worker, which runs candidate code, only says where its output is, and an output it points at must
be right to pass, as a file it wrote had to be.
"""

from __future__ import annotations

import ctypes
import os
import threading
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np

from regrapht.eval.cudart import ATTR_COMPUTE_MODE, COMPUTE_MODE_DEFAULT, D2H, H2D, CudaError, CudaRuntime
from regrapht.tasks.model import Tolerance

_FLOAT_CODES = {4: 0, 8: 1}  # float32, float64; any integer is 2 (compared exactly)
_INTEGER_CODE = 2


def bind_count_mismatches(library: ctypes.CDLL):
    """`regrapht_count_mismatches` of the harness's device library, typed: (actual, expected, n,
    dtype code, itemsize, rtol, atol, device scratch, host out[2]) -> cudaError_t."""
    function = library.regrapht_count_mismatches
    function.restype = ctypes.c_int
    function.argtypes = [
        ctypes.c_void_p,
        ctypes.c_void_p,
        ctypes.c_ulonglong,
        ctypes.c_int,
        ctypes.c_int,
        ctypes.c_double,
        ctypes.c_double,
        ctypes.c_void_p,
        ctypes.POINTER(ctypes.c_ulonglong),
    ]
    return function


class JudgeUnavailable(RuntimeError):
    """The parent cannot judge on the device here; outputs travel as files instead."""


@dataclass
class DeviceCount:
    count: int  # elements outside the tolerance; -1 when the device did not compare (nothing staged)
    actual: np.ndarray | None  # the output copied to the host, to judge and describe there; None if it passed


class DeviceJudge:
    """A CUDA context in the parent, the expected outputs of recent tasks in its memory (at most
    `budget_bytes`, least recently used dropped first; by default an eighth of the GPU's memory, at
    most 8 GiB, so candidates keep nearly all of it), and the comparison kernel of the harness's
    device library."""

    def __init__(self, libcudart: str, check_library: str, budget_bytes: int | None = None):
        try:
            self.rt = CudaRuntime(libcudart, global_symbols=False)
            # An exclusive-process device admits one context: the parent's would lock out every worker.
            mode = self.rt.attribute(ATTR_COMPUTE_MODE)
            if mode != COMPUTE_MODE_DEFAULT:
                raise JudgeUnavailable(f"the GPU's compute mode is {mode}, not shared (0)")
            self.rt.init(0)
            total = self.rt.mem_info()[1]
            self.scratch = self.rt.malloc(16)  # the kernel's two counters, reused by every call
            lib = ctypes.CDLL(check_library, mode=os.RTLD_NOW | os.RTLD_LOCAL)
            driver = ctypes.CDLL("libcuda.so.1", mode=os.RTLD_NOW | os.RTLD_LOCAL)
            self.count_mismatches = bind_count_mismatches(lib)
            self.address_range = driver.cuMemGetAddressRange_v2
        except (OSError, CudaError, AttributeError) as exc:  # AttributeError: a symbol this build lacks
            raise JudgeUnavailable(str(exc)) from exc
        self.address_range.restype = ctypes.c_int
        self.address_range.argtypes = [
            ctypes.POINTER(ctypes.c_ulonglong),
            ctypes.POINTER(ctypes.c_size_t),
            ctypes.c_ulonglong,
        ]
        self.budget_bytes = budget_bytes if budget_bytes is not None else min(8 << 30, total // 8)
        self.staged: OrderedDict[str, dict[tuple[int, str], int]] = OrderedDict()  # key -> device copies
        self.staged_bytes: dict[str, int] = {}
        self.lock = threading.Lock()

    def stage(self, key: str, expected: list[dict[str, np.ndarray]]) -> bool:
        """Copy every input set's expected outputs to the device, once per key. False when they do
        not fit the budget or the device: those outputs are then judged from files."""
        need = sum(values.nbytes for outputs in expected for values in outputs.values())
        with self.lock:
            if key in self.staged:
                self.staged.move_to_end(key)
                return True
            if need > self.budget_bytes:
                return False
            while self.staged and sum(self.staged_bytes.values()) + need > self.budget_bytes:
                self._drop(next(iter(self.staged)))
            copies: dict[tuple[int, str], int] = {}
            try:
                for index, outputs in enumerate(expected):
                    for name, values in outputs.items():
                        host = np.ascontiguousarray(values)
                        copies[(index, name)] = self.rt.malloc(host.nbytes)
                        self.rt.memcpy(copies[(index, name)], host.ctypes.data, host.nbytes, H2D)
            except CudaError:
                self.rt.last_error()  # out of device memory: not a state to keep
                for ptr in copies.values():
                    self.rt.free(ptr)
                return False
            self.staged[key] = copies
            self.staged_bytes[key] = need
            return True

    def count(
        self, key: str, set_index: int, name: str, handle_hex: str, tolerance: Tolerance, expected: np.ndarray
    ) -> DeviceCount:
        """Elements of the worker's output (the allocation behind `handle_hex`) outside `tolerance` of
        `expected`: compared on the device when the key's expected values are staged there, else
        copied to the host to be judged there. Raises ValueError when the handle does not lead to an
        allocation that holds the whole output (the worker's fault), CudaError when the parent's own
        device work fails."""
        floating = expected.dtype.kind == "f"
        if floating and expected.dtype.itemsize not in _FLOAT_CODES:
            raise ValueError(f"no device comparison for {expected.dtype}")
        code = _FLOAT_CODES[expected.dtype.itemsize] if floating else _INTEGER_CODE
        rtol, atol = (
            (tolerance.rtol, tolerance.atol) if floating and tolerance.kind != "exact" else (0.0, 0.0)
        )
        with self.lock:
            staged = self.staged.get(key, {}).get((set_index, name))
            try:
                remote = self.rt.ipc_open(handle_hex)
            except (CudaError, ValueError) as exc:
                self.rt.last_error()  # a bad handle is the worker's error, not a state to keep
                raise ValueError(f"the worker's handle for `{name}` does not open: {exc}") from exc
            try:
                base, size = ctypes.c_ulonglong(), ctypes.c_size_t()
                status = self.address_range(ctypes.byref(base), ctypes.byref(size), remote)
                # Never read past the worker's allocation: a fault would end this context for good.
                if status != 0 or base.value != remote or size.value < expected.nbytes:
                    raise ValueError(
                        f"the worker's handle for `{name}` maps {size.value} bytes, not the "
                        f"{expected.nbytes} of its output"
                    )
                if staged is not None:
                    out = (ctypes.c_ulonglong * 2)()
                    self.rt.check(
                        self.count_mismatches(
                            remote,
                            staged,
                            expected.size,
                            code,
                            expected.dtype.itemsize,
                            rtol,
                            atol,
                            self.scratch,
                            out,
                        ),
                        f"judging `{name}` on the device",
                    )
                    if out[0] == 0:
                        return DeviceCount(0, None)
                actual = np.empty_like(expected)
                self.rt.memcpy(actual.ctypes.data, remote, expected.nbytes, D2H)
                return DeviceCount(-1 if staged is None else int(out[0]), actual)
            finally:
                # Not raised: a failed unmapping must not hide what happened before it.
                self.rt.lib.cudaIpcCloseMemHandle(ctypes.c_void_p(remote))
                self.rt.last_error()

    def forget(self, key: str) -> None:
        """Free a key's expected outputs (its task's bench data is gone)."""
        with self.lock:
            if key in self.staged:
                self._drop(key)

    def _drop(self, key: str) -> None:
        for ptr in self.staged.pop(key).values():
            self.rt.free(ptr)
        del self.staged_bytes[key]

    def close(self) -> None:
        with self.lock:
            while self.staged:
                self._drop(next(iter(self.staged)))
            self.rt.free(self.scratch)
