"""Where a worker's buffers live: host memory (cpu target, host calling convention) or device
memory (device convention), behind one interface, with the harness's copies, fills, comparisons
and perturbations; large transfers go through page-locked slots while files are read and written
on threads. Runs inside the worker process: NumPy and ctypes only."""

from __future__ import annotations

import ctypes
import mmap
import os
from collections.abc import Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from regrapht.eval.perturb import Bounds, perturb_into, perturbed

# Large host-device copies go through page-locked slots of STAGE_BYTES, STAGE_SLOTS of them in
# flight: file reads and writes run on threads while the link copies.
STAGE_BYTES = 16 << 20
STAGE_SLOTS = 4
_PERTURB_CODES = {"f": 0, "i": 2, "u": 3}


def _settle(futures: Iterable[Future], raise_first: bool = True) -> None:
    """Wait for every future (no thread may still use a slot or a file once the caller returns),
    then raise the first failure, unless the caller is already raising one of its own."""
    error: BaseException | None = None
    for future in list(futures):
        try:
            future.result()
        except BaseException as exc:  # raised below, once the rest are done
            error = error or exc
    if error is not None and raise_first:
        raise error


def _bind_perturb(function: Any) -> Any:
    """`regrapht_perturb` (device) or `regrapht_perturb_host`, typed: (dst, src, n, dtype code, itemsize,
    key, float lo, float hi, integer lo, integer hi) -> status."""
    function.restype = ctypes.c_int
    function.argtypes = [
        ctypes.c_void_p,
        ctypes.c_void_p,
        ctypes.c_ulonglong,
        ctypes.c_int,
        ctypes.c_int,
        ctypes.c_ulonglong,
        ctypes.c_double,
        ctypes.c_double,
        ctypes.c_longlong,
        ctypes.c_longlong,
    ]
    return function


def _perturb_tail(dtype: str, key: int, bounds: Bounds) -> list[Any]:
    """The arguments after (dst, src) of the harness's perturbation functions."""
    np_dtype = np.dtype(dtype)
    floating = np_dtype.kind == "f"
    code = (0 if np_dtype.itemsize == 4 else 1) if floating else _PERTURB_CODES[np_dtype.kind]
    return [
        code,
        np_dtype.itemsize,
        key,
        float(bounds.lo) if floating else 0.0,
        float(bounds.hi) if floating else 0.0,
        0 if floating else int(bounds.lo),
        0 if floating else int(bounds.hi),
    ]


class HostMemory:
    """Buffers in host memory (cpu target, and the host calling convention)."""

    def __init__(self, perturb_library: str | None = None):
        self.perturb_host = None
        if perturb_library:
            try:
                lib = ctypes.CDLL(perturb_library, mode=os.RTLD_NOW | os.RTLD_LOCAL)
                self.perturb_host = _bind_perturb(lib.regrapht_perturb_host)
            except (OSError, AttributeError):
                pass  # perturbed with NumPy instead: slower, the same values

    def alloc(self, nbytes: int) -> np.ndarray:
        return np.empty(max(nbytes, 1), dtype=np.uint8)

    def ptr(self, handle: np.ndarray, offset: int) -> int:
        return handle.ctypes.data + offset

    def fill(self, handle: np.ndarray, offset: int, nbytes: int, byte: int) -> None:
        handle[offset : offset + nbytes] = byte

    def upload(self, handle: np.ndarray, offset: int, data: np.ndarray) -> None:
        raw = data.view(np.uint8).reshape(-1)
        handle[offset : offset + raw.size] = raw

    def download(self, handle: np.ndarray, offset: int, nbytes: int) -> np.ndarray:
        return handle[offset : offset + nbytes].copy()

    def copy(self, dst: np.ndarray, dst_off: int, src: np.ndarray, src_off: int, nbytes: int) -> None:
        dst[dst_off : dst_off + nbytes] = src[src_off : src_off + nbytes]

    def download_to(self, handle: np.ndarray, offset: int, nbytes: int, path: Path) -> None:
        handle[offset : offset + nbytes].tofile(path)

    def differences(
        self, a: np.ndarray, a_off: int, b: np.ndarray, b_off: int, nbytes: int, itemsize: int
    ) -> dict[str, int] | None:
        return late_elements(a[a_off : a_off + nbytes], b[b_off : b_off + nbytes], itemsize)

    def free(self, handle: np.ndarray) -> None:
        pass

    def perturb(
        self, dst: np.ndarray, dst_off: int, src: np.ndarray, src_off: int, nbytes: int, dtype: str,
        key: int, bounds: Bounds, base: np.ndarray,
    ) -> None:
        """Write the staged input set at `src` to `dst`, perturbed with `key` (eval/perturb.py), with
        the harness's host library where it loaded, else with NumPy."""
        if self.perturb_host is not None and nbytes:
            dst_ptr, src_ptr = dst.ctypes.data + dst_off, src.ctypes.data + src_off
            status = self.perturb_host(
                ctypes.c_void_p(dst_ptr),
                ctypes.c_void_p(src_ptr),
                nbytes // np.dtype(dtype).itemsize,
                *_perturb_tail(dtype, key, bounds),
            )
            if status == 0:
                return
        perturb_into(
            dst[dst_off : dst_off + nbytes].view(dtype), src[src_off : src_off + nbytes].view(dtype), key, bounds
        )

    def hold(self, ns: int) -> bool:
        """Host calls are timed on the host clock, launch and all: there is nothing to cover."""
        return False


def bind_hold(lib: Any) -> Any:
    """`regrapht_hold_device(ns)` of the harness's device library (data/kernels/device_check.cu),
    typed: every SM busy for `ns` on the legacy default stream, 0 when queued."""
    function = lib.regrapht_hold_device
    function.restype = ctypes.c_int
    function.argtypes = [ctypes.c_ulonglong]
    return function


class DeviceMemory:
    """Buffers in GPU memory (cuda target, device calling convention)."""

    def __init__(self, rt: Any, check_library: str | None = None):
        self.rt = rt
        self.check = None
        self.hold_device = None
        self.perturb_device = None
        self.stages: list[np.ndarray] | None = None
        self.io: ThreadPoolExecutor | None = None
        self.writer: ThreadPoolExecutor | None = None
        if check_library:
            try:
                lib = ctypes.CDLL(check_library, mode=os.RTLD_NOW | os.RTLD_LOCAL)
            except OSError:
                return  # compared on the host instead: slower, as correct
            self.hold_device = bind_hold(lib)
            perturb = getattr(lib, "regrapht_perturb", None)
            self.perturb_device = _bind_perturb(perturb) if perturb is not None else None
            self.check = lib.regrapht_count_differences
            self.check.restype = ctypes.c_int
            self.check.argtypes = [
                ctypes.c_void_p,
                ctypes.c_void_p,
                ctypes.c_ulonglong,
                ctypes.c_int,
                ctypes.POINTER(ctypes.c_ulonglong),
            ]

    def alloc(self, nbytes: int) -> int:
        return self.rt.malloc(nbytes)

    def _stages(self) -> list[np.ndarray]:
        """The page-locked slots large transfers go through, allocated at the first of them, and the
        threads that read files into them and write files from them (file copies release the GIL).
        Empty where page-locked memory cannot be had (a container's limit, say): copies then go
        through pageable memory, slower and as correct."""
        if self.stages is None:
            whole = STAGE_BYTES * STAGE_SLOTS
            try:
                ptr = self.rt.host_alloc(whole)
            except Exception:
                self.rt.last_error()  # the failed allocation is the harness's, not the candidate's
                self.stages = []
                return self.stages
            pinned = np.ctypeslib.as_array((ctypes.c_uint8 * whole).from_address(ptr))
            self.stages = [pinned[i * STAGE_BYTES : (i + 1) * STAGE_BYTES] for i in range(STAGE_SLOTS)]
            self.io = ThreadPoolExecutor(STAGE_SLOTS, thread_name_prefix="regrapht-stage")
            self.writer = ThreadPoolExecutor(1, thread_name_prefix="regrapht-write")
        return self.stages

    def _upload_staged(self, dst: int, nbytes: int, fill: Any) -> None:
        """Copy `nbytes` to `dst` a slot at a time: `fill(slot, pos, n)` puts bytes [pos, pos + n)
        into the slot on a thread, up to STAGE_SLOTS chunks ahead of the copies over the link."""
        stages = self._stages()
        assert self.io is not None
        chunks = [(pos, min(STAGE_BYTES, nbytes - pos)) for pos in range(0, nbytes, STAGE_BYTES)]
        pending = {
            i: self.io.submit(fill, stages[i], *chunks[i]) for i in range(min(STAGE_SLOTS, len(chunks)))
        }
        try:
            for i, (pos, n) in enumerate(chunks):
                pending.pop(i).result()
                # From page-locked memory the copy is synchronous: the slot is free when it returns.
                self.rt.memcpy(dst + pos, stages[i % STAGE_SLOTS].ctypes.data, n, 1)
                later = i + STAGE_SLOTS
                if later < len(chunks):
                    pending[later] = self.io.submit(fill, stages[i % STAGE_SLOTS], *chunks[later])
        except BaseException:
            _settle(pending.values(), raise_first=False)
            raise
        _settle(pending.values())

    def hold(self, ns: int) -> bool:
        """Queue the harness's hold kernel (every SM busy for `ns`) on the timing stream; True if
        queued. Without the harness library, or where the hold cannot fill every SM, the call is
        timed from an idle device, launch latency and all: slower-looking, never faster."""
        if self.hold_device is None or ns <= 0:
            return False
        if self.hold_device(ns) != 0:
            # Not the candidate's doing (the device was synchronized and clean just before), nor a
            # reason to fail it: its calls are timed from an idle device, as without the library.
            self.hold_device = None
            return False
        return True

    def ptr(self, handle: int, offset: int) -> int:
        return handle + offset

    def fill(self, handle: int, offset: int, nbytes: int, byte: int) -> None:
        self.rt.memset(handle + offset, byte, nbytes)

    def upload(self, handle: int, offset: int, data: np.ndarray) -> None:
        whole_file = (
            isinstance(data, np.memmap)
            and isinstance(data.base, mmap.mmap)
            and bool(data.filename)
            and data.mode == "r"
            and data.flags.c_contiguous
        )
        if data.nbytes <= STAGE_BYTES or not self._stages():
            data = np.ascontiguousarray(data)
            self.rt.memcpy(handle + offset, data.ctypes.data, data.nbytes, 1)
            return
        if whole_file:
            # A mapped file (bench inputs) is read, not touched through its mapping: a read copies
            # cached pages with no page fault per page.
            fd, start = os.open(data.filename, os.O_RDONLY), int(data.offset)

            def read(slot: np.ndarray, pos: int, n: int) -> None:
                view, got = memoryview(slot)[:n], 0
                while got < n:
                    k = os.preadv(fd, [view[got:]], start + pos + got)
                    if k == 0:
                        raise OSError(f"{data.filename} ended early")
                    got += k

            try:
                self._upload_staged(handle + offset, data.nbytes, read)
            finally:
                os.close(fd)
            return
        raw = np.ascontiguousarray(data).reshape(-1).view(np.uint8)

        def copy(slot: np.ndarray, pos: int, n: int) -> None:
            slot[:n] = raw[pos : pos + n]

        self._upload_staged(handle + offset, raw.size, copy)

    def download(self, handle: int, offset: int, nbytes: int) -> np.ndarray:
        out = np.empty(nbytes, dtype=np.uint8)
        self.rt.memcpy(out.ctypes.data, handle + offset, nbytes, 2)
        return out

    def copy(self, dst: int, dst_off: int, src: int, src_off: int, nbytes: int) -> None:
        self.rt.memcpy(dst + dst_off, src + src_off, nbytes, 3)

    def download_to(self, handle: int, offset: int, nbytes: int, path: Path) -> None:
        """Write a device buffer to a file (the out folder is memory-backed where it can be) with no
        whole-size copy in host memory past STAGE_BYTES (unless page-locked memory cannot be had):
        a gigabyte output is never an array here. Chunks cross the link into page-locked slots
        while one thread writes the previous ones out (writers side by side on one file queue on
        its lock: on an H100 four were no faster than one)."""
        if nbytes <= STAGE_BYTES or not self._stages():
            self.download(handle, offset, nbytes).tofile(path)
            return
        stages = self._stages()
        assert self.writer is not None
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        pending: dict[int, Future] = {}

        def write(slot: np.ndarray, pos: int, n: int) -> None:
            view, done = memoryview(slot)[:n], 0
            while done < n:
                done += os.pwrite(fd, view[done:], pos + done)

        try:
            os.posix_fallocate(fd, 0, nbytes)  # a full tmpfs fails here, before any copy
            for i, pos in enumerate(range(0, nbytes, STAGE_BYTES)):
                n, k = min(STAGE_BYTES, nbytes - pos), i % STAGE_SLOTS
                if k in pending:
                    pending.pop(k).result()  # the slot's previous chunk is written: reuse it
                self.rt.memcpy(stages[k].ctypes.data, handle + offset + pos, n, 2)
                pending[k] = self.writer.submit(write, stages[k], pos, n)
        except BaseException:
            _settle(pending.values(), raise_first=False)
            raise
        else:
            _settle(pending.values())
        finally:
            os.close(fd)

    def differences(
        self, a: int, a_off: int, b: int, b_off: int, nbytes: int, itemsize: int
    ) -> dict[str, int] | None:
        """Elements that differ between two device buffers, counted on the device."""
        if self.check is None or itemsize not in (1, 2, 4, 8) or nbytes % itemsize:
            return late_elements(self.download(a, a_off, nbytes), self.download(b, b_off, nbytes), itemsize)
        result = (ctypes.c_ulonglong * 2)()
        self.rt.check(
            self.check(
                ctypes.c_void_p(a + a_off), ctypes.c_void_p(b + b_off), nbytes // itemsize, itemsize, result
            ),
            "comparing outputs on the device",
        )
        return {"count": int(result[0]), "first": int(result[1])} if result[0] else None

    def perturb(
        self, dst: int, dst_off: int, src: int, src_off: int, nbytes: int, dtype: str,
        key: int, bounds: Bounds, base: np.ndarray,
    ) -> None:
        """Write the staged input set at `src` to `dst`, perturbed with `key`, with the harness's
        kernel (on the legacy default stream, before the pre-call synchronization): the cost of the
        plain copy it replaces. Without the harness library, perturbed on the host from the mapped
        base file (`base`) and uploaded: slower, the same values."""
        if self.perturb_device is None:
            self.upload(dst, dst_off, perturbed(np.asarray(base), key, bounds))
            return
        self.rt.check(
            self.perturb_device(
                ctypes.c_void_p(dst + dst_off),
                ctypes.c_void_p(src + src_off),
                nbytes // np.dtype(dtype).itemsize,
                *_perturb_tail(dtype, key, bounds),
            ),
            "perturbing a timed call's inputs",
        )

    def ipc_handle(self, handle: int) -> str:
        return self.rt.ipc_handle(handle)

    def free(self, handle: int) -> None:
        self.rt.free(handle)


def late_elements(at_return: np.ndarray, final: np.ndarray, itemsize: int) -> dict[str, int] | None:
    """How many elements (of `itemsize` bytes) differ between an output's bytes as the function
    returned and after the device was synchronized, and the first of them; None when none do."""
    if np.array_equal(at_return, final):
        return None
    count, first = 0, -1
    step = (1 << 22) // itemsize * itemsize  # whole elements per slice: memory stays small
    for start in range(0, final.size, step):
        differs = (
            (at_return[start : start + step] != final[start : start + step]).reshape(-1, itemsize).any(axis=1)
        )
        n = int(np.count_nonzero(differs))
        if n and first < 0:
            first = start // itemsize + int(np.argmax(differs))
        count += n
    return {"count": count, "first": first}
