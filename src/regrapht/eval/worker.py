"""The isolated worker: one process per candidate, started by the evaluator.

It loads the candidate's shared library (and the baselines timed beside it), runs the correctness
cases on guarded and poisoned buffers, then times everything interleaved. It judges nothing: raw
buffers and timings go back to the parent, which owns the inputs' true values, the expected outputs
and the verdict. Messages travel as JSON lines over a pipe the parent created; arrays travel as
files in a folder the parent chose.

Usage (by the evaluator only): python -m regrapht.eval.worker JOB.json FD
"""

from __future__ import annotations

import ctypes
import json
import mmap
import os
import secrets
import sys
import time
from collections.abc import Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from regrapht.eval.perturb import Bounds, perturb_into, perturbed
from regrapht.eval.protocol import OPEN_CONTEXT, Event, read_anchor_reply, read_timing_reply

_CTYPES = {
    "int8": ctypes.c_int8,
    "uint8": ctypes.c_uint8,
    "int16": ctypes.c_int16,
    "uint16": ctypes.c_uint16,
    "int32": ctypes.c_int32,
    "uint32": ctypes.c_uint32,
    "int64": ctypes.c_int64,
    "uint64": ctypes.c_uint64,
    "float32": ctypes.c_float,
    "float64": ctypes.c_double,
}
ENTRY = "__regrapht_entry"
# Large host-device copies go through page-locked slots of STAGE_BYTES, STAGE_SLOTS of them in
# flight: file reads and writes run on threads while the link copies.
STAGE_BYTES = 16 << 20
STAGE_SLOTS = 4
# After the first timed call, one checked call is drawn in secret from each window of timed rounds
# (offsets from the first timed round): behaviour that changes on later calls is caught at calls a
# candidate cannot predict, at a cost that does not grow with the rounds. The last window ends at
# the round limit.
CHECK_WINDOWS = ((1, 8), (8, 64), (64, None))
_PERTURB_CODES = {"f": 0, "i": 2, "u": 3}


class Channel:
    def __init__(self, fd: int):
        self.fd = fd
        self.count = 0
        self.started = time.perf_counter()

    def send(self, **message: Any) -> None:
        self.count += 1
        message["t"] = round(time.perf_counter() - self.started, 6)  # seconds since the worker began
        data = (json.dumps(message) + "\n").encode()
        while data:
            data = data[os.write(self.fd, data) :]


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
            self.hold_device = lib.regrapht_hold_device
            self.hold_device.restype = ctypes.c_int
            self.hold_device.argtypes = [ctypes.c_ulonglong]
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


class Worker:
    def __init__(self, job: dict[str, Any], channel: Channel, ready: Any = None):
        self.job = job
        self.ready = ready  # a CUDA runtime whose context a spare process created before its job came
        self.channel = channel
        self.guard = int(job["guard_bytes"])
        self.canary = int(job["canary"])
        self.poison = [int(b) for b in job["poison"]]
        self.out_dir = Path(job["out_dir"])
        self.rt = None
        if job["uses_cuda"]:
            from regrapht.eval.cudart import CudaRuntime

            self.rt = ready[0] if ready else CudaRuntime(job["libcudart"])
        self.mem = (
            DeviceMemory(self.rt, job.get("device_check"))
            if job["device_buffers"]
            else HostMemory(job.get("host_perturb"))
        )
        self.pool: dict[tuple[str, int], Any] = {}
        self.entries: dict[str, Any] = {}
        # the array arguments a call writes: what the checks snapshot, keep and send
        self.written = [a for a in job["args"] if a["array"] and a["role"] in ("output", "inout")]
        # The serial reference (the oracle) is trusted: it reports only what it writes (its inputs
        # are not checked for changes, and host code has no late writes to snapshot), and its timed
        # rounds read their inputs where they are staged instead of copying them in.
        self.trusted = bool(job.get("trusted"))
        self.judge_on_device = False  # whether the parent judges timed outputs in device memory
        self.mapped: dict[Path, np.ndarray] = {}

    # ---- setup -----------------------------------------------------------------------------
    def start(self) -> None:
        info: dict[str, Any] = {"pid": os.getpid(), "nonce": self.job.get("nonce")}
        if self.rt is not None:
            if self.ready:
                info["context_s"], info["spare"] = self.ready[1], True
            else:
                t0 = time.perf_counter()
                self.rt.init(0)
                info["context_s"] = time.perf_counter() - t0
            runtime, driver = self.rt.versions()
            info.update(
                cuda_runtime=runtime,
                cuda_driver=driver,
                l2_bytes=self.rt.attribute(38),
                sm_count=self.rt.attribute(16),
                clock_khz=self.rt.attribute(13),
                cc_major=self.rt.attribute(75),
                cc_minor=self.rt.attribute(76),
                memory=self.rt.mem_info(),
            )
            if self.job.get("measure_bandwidth"):
                info["bandwidth_bytes_per_s"] = self._measure_bandwidth()
        self.channel.send(event=Event.HELLO, **info)

    def _measure_bandwidth(self) -> float:
        rt = self.rt
        nbytes = 256 << 20
        a, b = rt.malloc(nbytes), rt.malloc(nbytes)
        rt.memset(a, 1, nbytes)
        start, end = rt.event(), rt.event()
        best = 0.0
        for _ in range(6):
            rt.record(start)
            rt.memcpy(b, a, nbytes, 3)
            rt.record(end)
            rt.check(rt.synchronize(), "bandwidth probe")
            best = max(best, 2 * nbytes / max(rt.elapsed_s(start, end), 1e-9))
        rt.free(a)
        rt.free(b)
        return best

    def confine(self) -> bool:
        """Enter the OS sandbox the job asks for, once this process's own setup is done (the CUDA
        context and its device files, the driver's threads) and before any candidate code is loaded.
        Reports what took effect; False when the job must not go on (the harness's own calls fail
        inside the sandbox, or the job requires a protection this kernel lacks)."""
        spec = self.job.get("sandbox")
        if not spec:
            return True
        from regrapht.eval import sandbox

        os.chdir(self.out_dir)  # a candidate's relative paths land in its scratch
        began = time.perf_counter()
        report = sandbox.confine(spec["read"], spec["write"])
        broken = self._harness_works() if report["landlock"] or report["seccomp"] else None
        report["seconds"] = round(time.perf_counter() - began, 6)  # entering it and the check after
        self.channel.send(event=Event.SANDBOX, **report, broken=broken)
        missing = spec.get("require") and not (report["landlock"] and report["seccomp"])
        return not broken and not missing

    def _harness_works(self) -> str | None:
        """What the harness does after this point, once, inside the sandbox: write, read and remove a
        file in its scratch, start a thread, and (cuda) allocate, fill, synchronize and free device
        memory. The error text when any of it fails: the sandbox, not a candidate, broke it."""
        import threading

        try:
            probe = self.out_dir / ".sandbox-probe"
            probe.write_bytes(b"ok")
            if probe.read_bytes() != b"ok":
                return "a file written in the scratch read back differently"
            probe.unlink()
            thread = threading.Thread(target=lambda: None)
            thread.start()
            thread.join()
            if self.rt is not None:
                ptr = self.rt.malloc(1 << 20)
                self.rt.memset(ptr, 0, 1 << 20)
                self.rt.check(self.rt.synchronize(), "synchronizing inside the sandbox")
                self.rt.free(ptr)
        except Exception as exc:
            return f"{type(exc).__name__}: {exc}"[:500]
        return None

    def load(self) -> None:
        for name, path in self.job["libs"].items():
            lib = ctypes.CDLL(path, mode=os.RTLD_NOW | os.RTLD_LOCAL)
            fn = getattr(lib, ENTRY)
            fn.restype = None
            fn.argtypes = [ctypes.c_void_p if a["array"] else _CTYPES[a["dtype"]] for a in self.job["args"]]
            self.entries[name] = fn
        self.channel.send(event=Event.LOADED, libs=sorted(self.entries))

    # ---- buffers ---------------------------------------------------------------------------
    def buffer(self, name: str, nbytes: int, tag: str = "") -> Any:
        # Buffers are reused across seeds of one size on purpose: a candidate that caches results
        # by pointer then returns the previous seed's answer and fails.
        key = (name + tag, nbytes)
        if key not in self.pool:
            self.pool[key] = self.mem.alloc(nbytes + 2 * self.guard)
        return self.pool[key]

    def release_all(self) -> None:
        for handle in self.pool.values():
            self.mem.free(handle)
        self.pool.clear()

    def _sync_and_check(self, where: str) -> None:
        if self.rt is None:
            return
        from regrapht.eval.cudart import CudaError

        launch = self.rt.last_error()
        code = self.rt.synchronize()
        if code == 0:
            code = launch or self.rt.last_error()
        if code != 0:
            name, text = self.rt.error_text(code)
            raise CudaError(code, name, text, where)

    def _arguments(
        self, handles: dict[str, Any], scalars: dict[str, Any], direct: dict[str, np.ndarray] | None = None
    ) -> list[Any]:
        """The call's arguments: buffers (past their guard), arrays read in place (`direct`: the
        trusted reference's inputs, mapped from their files), and scalars."""
        values = []
        for a in self.job["args"]:
            if direct and a["name"] in direct:
                values.append(ctypes.c_void_p(direct[a["name"]].ctypes.data))
            elif a["array"]:
                values.append(ctypes.c_void_p(self.mem.ptr(handles[a["name"]], self.guard)))
            else:
                values.append(_CTYPES[a["dtype"]](scalars[a["name"]]))
        return values

    # ---- correctness -----------------------------------------------------------------------
    def run_cases(self) -> None:
        runs = int(self.job["runs_per_case"])
        reported = [a for a in self.job["args"] if a["array"] and (not self.trusted or a["role"] != "input")]
        for lib in self.job["check_libs"]:
            fn = self.entries[lib]
            for index, case in enumerate(self.job["cases"]):
                case_dir = Path(case["dir"])
                scalars = json.loads((case_dir / "scalars.json").read_text())
                # Mapped, not read: uploading copies from the file's pages once.
                inputs = {
                    a["name"]: self._mapped(case_dir / f"{a['name']}.npy")
                    for a in self.job["args"]
                    if a["array"] and a["role"] in ("input", "inout")
                }
                perturb = case.get("perturb")
                if perturb:
                    # A checked timed call's inputs: the base set perturbed with that call's key, by
                    # the harness's host library (NumPy without it) as a candidate's calls are.
                    for name, bounds in perturb["bounds"].items():
                        if bounds is None:
                            continue
                        base = inputs[name]
                        out = np.empty(base.shape, dtype=base.dtype)
                        self._perturb_host(out, base, int(perturb["key"]), Bounds(*bounds))
                        inputs[name] = out
                direct = {n: inputs[n] for n in self._read_in_place()}
                for run in range(runs):
                    handles = self._prepare(
                        case["nbytes"], inputs, self.poison[run % len(self.poison)], skip=set(direct)
                    )
                    self.channel.send(event=Event.CALLING, lib=lib, case=index, run=run)
                    fn(*self._arguments(handles, scalars, direct))
                    snapshots = {} if self.trusted else self._snapshot(handles, case["nbytes"])
                    self._sync_and_check(f"after the call ({case['label']}, run {run + 1})")
                    files, at_return = {}, {}
                    for a in reported:
                        nbytes = case["nbytes"][a["name"]]
                        path = self.out_dir / f"{lib}.case{index}.run{run}.{a['name']}.bin"
                        self.mem.download_to(handles[a["name"]], 0, nbytes + 2 * self.guard, path)
                        files[a["name"]] = str(path)
                    for name, shadow in snapshots.items():
                        path = self.out_dir / f"{lib}.case{index}.run{run}.{name}.at_return.bin"
                        self.mem.download_to(shadow, 0, case["nbytes"][name], path)
                        at_return[name] = str(path)
                    self.channel.send(
                        event=Event.CASE_DONE, lib=lib, case=index, run=run, files=files, at_return=at_return
                    )

    def _perturb_host(self, out: np.ndarray, base: np.ndarray, key: int, bounds: Bounds) -> None:
        host = self.mem if isinstance(self.mem, HostMemory) else HostMemory(self.job.get("host_perturb"))
        raw_out, raw_base = out.reshape(-1).view(np.uint8), np.asarray(base).reshape(-1).view(np.uint8)
        host.perturb(raw_out, 0, raw_base, 0, raw_base.size, base.dtype.name, key, bounds, base)

    def _snapshot(self, handles: dict[str, Any], nbytes: dict[str, int]) -> dict[str, Any]:
        """Copy every output as the calling stream sees it when the function returns, before any
        synchronization: work still running elsewhere (a non-blocking stream, a host thread) makes
        the final buffer differ from this copy."""
        snapshots = {}
        for a in self.written:
            size = nbytes[a["name"]]
            shadow = self.buffer(a["name"], size, tag=".at_return")
            self.mem.copy(shadow, 0, handles[a["name"]], self.guard, size)
            snapshots[a["name"]] = shadow
        return snapshots

    def _read_in_place(self) -> set[str]:
        """Inputs the trusted reference reads where its files are mapped, never copied: a gigabyte
        task's outputs then cost the calls, not copies of their inputs. Never a candidate's (its
        inputs get guards and change checks), nor an array the reference writes."""
        if not self.trusted or self.job["device_buffers"]:
            return set()
        return {a["name"] for a in self.job["args"] if a["array"] and a["role"] == "input"}

    def _mapped(self, path: Path) -> np.ndarray:
        """An input file, mapped. The reference reads in place from one mapping per file, shared by
        its output runs and its timed rounds (whose pages the first calls have touched), mapped
        copy-on-write, so a reference that writes to an input (declared without const) changes only
        its own pages, never the file the candidates read."""
        if not self._read_in_place():
            return np.load(path, mmap_mode="r")  # a candidate's: copied into its buffers, then let go
        if path not in self.mapped:
            self.mapped[path] = np.load(path, mmap_mode="c")
        return self.mapped[path]

    def _prepare(
        self, nbytes: dict[str, int], inputs: dict[str, np.ndarray], poison: int, skip: set[str] = frozenset()
    ) -> dict[str, Any]:
        handles = {}
        for a in self.job["args"]:
            if not a["array"] or a["name"] in skip:
                continue
            size = nbytes[a["name"]]
            handle = self.buffer(a["name"], size)
            # Canaries in the guards; the data or the poison between them, each written once.
            self.mem.fill(handle, 0, self.guard, self.canary)
            self.mem.fill(handle, self.guard + size, self.guard, self.canary)
            if a["role"] in ("input", "inout"):
                self.mem.upload(handle, self.guard, inputs[a["name"]])
            else:
                self.mem.fill(handle, self.guard, size, poison)
            handles[a["name"]] = handle
        return handles

    # ---- timing ----------------------------------------------------------------------------
    def run_timing(self, spec: dict[str, Any]) -> None:
        rng = np.random.default_rng(int(spec["order_seed"]))
        bench_dir = Path(spec["dir"])
        scalars = json.loads((bench_dir / "scalars.json").read_text())
        arrays = [a for a in self.job["args"] if a["array"]]
        readable = [a for a in arrays if a["role"] in ("input", "inout")]
        nbytes = spec["nbytes"]
        # Each input set lives in its own buffer and is copied into the argument buffers before
        # every call, so consecutive calls see different data at the same pointers. The trusted
        # reference reads its inputs in place instead, from the files its output runs mapped.
        in_place = self._read_in_place()
        sets, mapped_sets, bases = [], [], []
        for s in range(int(spec["sets"])):
            staged, mapped, base = {}, {}, {}
            for a in readable:
                data = self._mapped(bench_dir / f"set{s}" / f"{a['name']}.npy")
                if a["name"] in in_place:
                    mapped[a["name"]] = data
                    continue
                handle = self.buffer(a["name"], nbytes[a["name"]], tag=f".set{s}")
                self.mem.upload(handle, self.guard, data)
                staged[a["name"]] = handle
                base[a["name"]] = data
            sets.append(staged)
            mapped_sets.append(mapped)
            bases.append(base)
        handles = {
            a["name"]: self.buffer(a["name"], nbytes[a["name"]]) for a in arrays if a["name"] not in in_place
        }
        flush_bytes = int(spec.get("flush_bytes") or self._default_flush_bytes())
        flush = self.mem.alloc(flush_bytes)
        hold_ns = int(float(spec.get("hold_s", 0.0)) * 1e9)
        fresh = FreshInputs.from_spec(spec.get("fresh"), len(sets))
        anchors = self._anchors(spec, nbytes, fresh is not None)
        self.judge_on_device = bool(spec.get("judge_on_device")) and anchors is not None
        start_ev = end_ev = 0
        if self.rt is not None:
            start_ev, end_ev = self.rt.event(), self.rt.event()
        self.channel.send(event=Event.TIMING_READY)
        libs = list(spec["libs"])
        samples: dict[str, dict[str, list[float]]] = {
            lib: {"host": [], "event": [], "set": []} for lib in libs
        }
        max_rounds = int(spec["max_rounds"])
        # One input set per round, shared by every kernel, so timings compare like with like even
        # when the sets differ in cost (a power-law matrix's longest row, say). Sets come in shuffled
        # blocks of one each, so every set weighs the same in the medians; drawn ahead, so fresh
        # inputs can place each checked call on the set its expected outputs were computed for.
        sequence = set_sequence(rng, len(sets), max_rounds + 8 * len(sets) + 8)
        # Checked calls: the first timed round, one drawn in secret from each window, and a final
        # round the candidate cannot tell from the others (see CHECK_WINDOWS).
        check_offsets = {0} | {
            int(rng.integers(lo, hi)) for lo, hi in _windows(max_rounds) if hi > lo
        }
        # Fresh inputs: checked round -> its slot (its key and base set), planned once the
        # warm-up ends.
        checked_rounds: dict[int, int] = {}
        # Warm-up: `warmup_rounds` rounds, fewer for slow kernels (never none): once `warmup_s` is
        # spent, one more call of seconds warms nothing the first did not.
        warmup_rounds, warmup_s = int(spec["warmup_rounds"]), float(spec.get("warmup_s", float("inf")))
        timed_from: int | None = 0 if warmup_rounds == 0 else None
        if fresh is not None and timed_from is not None:
            checked_rounds = fresh.plan(sequence, timed_from, max_rounds, rng)
        checks: list[dict[str, Any]] = []
        began = time.perf_counter()
        stop_after: int | None = None
        round_index = 0
        held = False
        check_s = 0.0  # of the timing phase, spent checking timed outputs (and sending them)
        while True:
            timed = timed_from is not None and round_index >= timed_from
            final = stop_after is not None and round_index == stop_after
            order = [libs[i] for i in rng.permutation(len(libs))]
            set_index = sequence[round_index]
            slot = checked_rounds.get(round_index) if fresh is not None else None
            # Every call of a round sees the same inputs; every round new ones (fresh inputs). A
            # checked round's key was chosen by the parent, the others' here, never to be seen again.
            key = secrets.randbits(64) if fresh is None or slot is None else fresh.keys[slot]
            for lib in order:
                for a in readable:
                    if a["name"] in in_place:
                        continue
                    bounds = None if fresh is None else fresh.bounds[set_index].get(a["name"])
                    if bounds is not None:
                        self.mem.perturb(
                            handles[a["name"]],
                            self.guard,
                            sets[set_index][a["name"]],
                            self.guard,
                            nbytes[a["name"]],
                            a["dtype"],
                            key,
                            bounds,
                            bases[set_index][a["name"]],
                        )
                        continue
                    self.mem.copy(
                        handles[a["name"]],
                        self.guard,
                        sets[set_index][a["name"]],
                        self.guard,
                        nbytes[a["name"]],
                    )
                for a in arrays:
                    if a["role"] == "output":  # also the reference's: its pages are touched before the call
                        self.mem.fill(
                            handles[a["name"]],
                            self.guard,
                            nbytes[a["name"]],
                            self.poison[round_index % len(self.poison)],
                        )
                self.mem.fill(flush, 0, flush_bytes, round_index & 0xFF)
                args = self._arguments(handles, scalars, mapped_sets[set_index])
                fn = self.entries[lib]
                if fresh is not None:
                    check_this = lib in spec["check_libs"] and slot is not None
                else:
                    check_this = lib in spec["check_libs"] and (
                        final or (timed and round_index - timed_from in check_offsets)
                    )
                # The flush is queued before this synchronization, never after it: a kernel on the
                # candidate's own non-blocking stream could run beside a flush still in flight,
                # before the start event, untimed. The hold queued next fills every SM's thread
                # slots instead, so the candidate's launches are queued while it runs (the host's
                # launch latency is not timed) and no kernel of theirs can run until it ends.
                self._sync_and_check("before a timed call")
                held = self.mem.hold(hold_ns)  # nothing but the start event between it and the call
                if self.rt is not None:
                    t0 = time.perf_counter_ns()
                    self.rt.record(start_ev)
                    fn(*args)
                    self.rt.record(end_ev)
                    snapshots = self._snapshot(handles, nbytes) if check_this else {}
                    code = self.rt.synchronize()
                    t1 = time.perf_counter_ns()
                    self._raise_if(code or self.rt.last_error(), f"in timed call {round_index + 1} of {lib}")
                    event_s = self.rt.elapsed_s(start_ev, end_ev)
                else:
                    t0 = time.perf_counter_ns()
                    fn(*args)
                    t1 = time.perf_counter_ns()
                    event_s = (t1 - t0) / 1e9
                    snapshots = self._snapshot(handles, nbytes) if check_this else {}
                if timed:
                    samples[lib]["host"].append((t1 - t0) / 1e9)
                    samples[lib]["event"].append(event_s)
                    samples[lib]["set"].append(set_index)
                if check_this:
                    t_check = time.perf_counter()
                    checks.append(
                        self._check_timed(
                            lib, round_index, set_index, final, handles, snapshots, nbytes, anchors, slot
                        )
                    )
                    check_s += time.perf_counter() - t_check
            # Every round reports, so a slow but live kernel is never mistaken for a hang.
            self.channel.send(event=Event.TIMING_PROGRESS, round=round_index)
            if final:
                break
            round_index += 1
            if timed_from is None and (
                round_index >= warmup_rounds or time.perf_counter() - began >= warmup_s
            ):
                timed_from = round_index
                if fresh is not None:
                    checked_rounds = fresh.plan(sequence, timed_from, max_rounds, rng)
            timed_rounds = 0 if timed_from is None else round_index - timed_from
            if stop_after is None and self._enough(
                samples, spec, time.perf_counter() - began, round_index, timed_rounds
            ):
                if not spec["check_libs"]:
                    break  # nothing to check, so no final round is owed (the serial reference)
                stop_after = round_index
                if fresh is not None:
                    # The final check falls on the next round of its slot's set that no other check
                    # took; the rounds before it are timed as any other (with two sets, at most three).
                    stop_after = fresh.final_round(sequence, round_index, checked_rounds)
                    checked_rounds[stop_after] = len(fresh.keys) - 1
        self.mem.free(flush)
        for anchor in (anchors or {}).values():
            for handle in anchor["buffers"].values():
                self.mem.free(handle)
        self.channel.send(
            event=Event.TIMING,
            samples=samples,
            checks=checks,
            seconds=time.perf_counter() - began,
            check_s=check_s,
            hold_s=hold_ns / 1e9 if held else 0.0,
            fresh=fresh is not None,
        )

    def _anchors(
        self, spec: dict[str, Any], nbytes: dict[str, int], fresh: bool = False
    ) -> dict[tuple[str, int], dict[str, Any]] | None:
        """Every buffer the timed checks need, allocated before the first timed call: an allocation
        (or a drop in free memory) between calls would tell a candidate which calls are checked.
        The snapshot at return per output, and one anchor per checked library, input set and output.
        With fresh inputs no two checked outputs are alike: one kept copy per checked library, for
        the parent to judge in device memory, and only where it will. None when the anchors do not
        fit: every check then sends its output to the parent."""
        for a in self.written:
            self.buffer(a["name"], nbytes[a["name"]], tag=".at_return")
        if fresh and not spec.get("judge_on_device"):
            return None
        anchors: dict[tuple[str, int], dict[str, Any]] = {}
        try:
            for lib in spec["check_libs"]:
                for s in range(1 if fresh else int(spec["sets"])):
                    anchor: dict[str, Any] = {"round": None, "buffers": {}}
                    anchors[(lib, s)] = anchor
                    for a in self.written:
                        anchor["buffers"][a["name"]] = self.mem.alloc(nbytes[a["name"]])
        except Exception as exc:
            from regrapht.eval.cudart import CudaError

            if not isinstance(exc, (CudaError, MemoryError)):
                raise
            if self.rt is not None:
                self.rt.last_error()  # a failed cudaMalloc leaves its error to be read: read it here
            for anchor in anchors.values():
                for handle in anchor["buffers"].values():
                    self.mem.free(handle)
            return None
        return anchors

    def _check_timed(
        self,
        lib: str,
        round_index: int,
        set_index: int,
        final: bool,
        handles: dict[str, Any],
        snapshots: dict[str, Any],
        nbytes: dict[str, int],
        anchors: dict[tuple[str, int], dict[str, Any]] | None,
        slot: int | None = None,
    ) -> dict[str, Any]:
        """One checked timed call. Bench outputs run to gigabytes, so comparisons happen where the
        buffers are and only their verdicts travel: the output as the call returned against the
        output after synchronization (late writes), and the output against this input set's first
        checked output (its anchor). Only an anchor, or an output that differs from its anchor,
        crosses to the parent as a file for the full check against the expected values."""
        written = self.written
        late = {}
        for a in written:
            changed = self.mem.differences(
                snapshots[a["name"]], 0, handles[a["name"]], self.guard, nbytes[a["name"]], int(a["itemsize"])
            )
            if changed:
                late[a["name"]] = changed
        entry: dict[str, Any] = {
            "lib": lib,
            "round": round_index,
            "set": set_index,
            "late": late,
            "final": final,
        }
        if slot is not None:
            return self._check_fresh(entry, lib, round_index, set_index, slot, handles, nbytes, anchors)
        anchor = None if anchors is None else anchors.get((lib, set_index))
        if (
            anchor is not None
            and anchor["round"] is not None
            and not any(
                self.mem.differences(
                    anchor["buffers"][a["name"]],
                    0,
                    handles[a["name"]],
                    self.guard,
                    nbytes[a["name"]],
                    int(a["itemsize"]),
                )
                for a in written
            )
        ):
            entry.update(files={}, same_as=anchor["round"])
            return entry
        sources = {a["name"]: (handles[a["name"]], self.guard) for a in written}
        if anchor is not None and anchor["round"] is None:
            # The set's first check: keep the output first and send the kept copy, so the anchor
            # is exactly what the parent judges.
            for a in written:
                self.mem.copy(
                    anchor["buffers"][a["name"]], 0, handles[a["name"]], self.guard, nbytes[a["name"]]
                )
                sources[a["name"]] = (anchor["buffers"][a["name"]], 0)
            anchor["round"] = round_index
            if self.judge_on_device and self._anchor_judged_by_parent(lib, round_index, set_index, anchor):
                entry.update(files={}, judged_on_device=True)
                return entry
        files = {}
        for a in written:
            path = self.out_dir / f"timed.{lib}.r{round_index}.{a['name']}.bin"
            handle, offset = sources[a["name"]]
            self.mem.download_to(handle, offset, nbytes[a["name"]], path)
            files[a["name"]] = str(path)
        entry["files"] = files
        return entry

    def _check_fresh(
        self,
        entry: dict[str, Any],
        lib: str,
        round_index: int,
        set_index: int,
        slot: int,
        handles: dict[str, Any],
        nbytes: dict[str, int],
        anchors: dict[tuple[str, int], dict[str, Any]] | None,
    ) -> dict[str, Any]:
        """A checked call with fresh inputs: its output is like no other call's, so it is judged in
        full against its own expected values (its slot's), in device memory where the parent can,
        else as a file."""
        entry["slot"] = slot
        anchor = None if anchors is None else anchors.get((lib, 0))
        if anchor is not None and self.judge_on_device:
            for a in self.written:
                self.mem.copy(anchor["buffers"][a["name"]], 0, handles[a["name"]], self.guard, nbytes[a["name"]])
            if self._anchor_judged_by_parent(lib, round_index, set_index, anchor, slot):
                entry.update(files={}, judged_on_device=True)
                return entry
        files = {}
        for a in self.written:
            path = self.out_dir / f"timed.{lib}.r{round_index}.{a['name']}.bin"
            self.mem.download_to(handles[a["name"]], self.guard, nbytes[a["name"]], path)
            files[a["name"]] = str(path)
        entry["files"] = files
        return entry

    def _anchor_judged_by_parent(
        self, lib: str, round_index: int, set_index: int, anchor: dict[str, Any], slot: int | None = None
    ) -> bool:
        """Offer the parent the kept output: it maps it into its own context and judges it there,
        while this process waits (the device idle). False when it could not: the output then goes
        as a file. Where this platform cannot export device memory, no later anchor is offered."""
        from regrapht.eval.cudart import CudaError

        try:
            handles = {a["name"]: self.mem.ipc_handle(anchor["buffers"][a["name"]]) for a in self.written}
        except CudaError:
            self.rt.last_error()  # the harness's failure, not the candidate's: not left to be read
            self.judge_on_device = False
            return False
        extra = {} if slot is None else {"slot": slot}
        self.channel.send(event=Event.ANCHOR, lib=lib, round=round_index, set=set_index, handles=handles, **extra)
        return read_anchor_reply(sys.stdin.readline())

    def _default_flush_bytes(self) -> int:
        """Twice the last-level cache, so every timed call starts with cold caches."""
        if self.rt is not None:
            return max(2 * self.rt.attribute(38), 64 << 20)
        try:
            text = Path("/sys/devices/system/cpu/cpu0/cache/index3/size").read_text().strip()
            size = int(text.rstrip("KMG")) << {"K": 10, "M": 20, "G": 30}.get(text[-1], 0)
            return max(2 * size, 32 << 20)
        except (OSError, ValueError):
            return 64 << 20

    def _raise_if(self, code: int, where: str) -> None:
        if code and self.rt is not None:
            from regrapht.eval.cudart import CudaError

            name, text = self.rt.error_text(code)
            raise CudaError(code, name, text, where)

    @staticmethod
    def _enough(
        samples: dict[str, dict[str, list[float]]],
        spec: dict[str, Any],
        elapsed: float,
        rounds: int,
        timed: int,
    ) -> bool:
        if rounds >= int(spec["max_rounds"]):
            return True
        if timed < int(spec["min_rounds"]):
            # Slow kernels may stop short of min_rounds once over budget, never with fewer than
            # `floor_rounds` (5 unless the spec says otherwise: a serial reference of seconds per call
            # is a baseline known to a few percent after one call, and each call costs seconds).
            return elapsed > float(spec["budget_s"]) and timed >= int(spec.get("floor_rounds", 5))
        if elapsed > float(spec["budget_s"]):
            return True
        if elapsed < min(float(spec.get("min_s", 0.0)), float(spec["budget_s"])):
            return False
        for lib_samples in samples.values():
            if within_set_rse(lib_samples["event"], lib_samples.get("set")) > float(spec["target_rse"]):
                return False
        return True


def _windows(max_rounds: int) -> list[tuple[int, int]]:
    return [(lo, max_rounds if hi is None else hi) for lo, hi in CHECK_WINDOWS]


def set_sequence(rng: np.random.Generator, sets: int, rounds: int) -> list[int]:
    """The input set of each round: shuffled blocks in which every set comes once."""
    sequence: list[int] = []
    while len(sequence) < rounds:
        sequence.extend(int(i) for i in rng.permutation(sets))
    return sequence[:rounds]


class FreshInputs:
    """Fresh-input timing: each checked call's slot (first timed call, one per window, final) has the
    parent's key and base set; every other call a key of its own, drawn here and never reused."""

    def __init__(self, keys: list[int], slot_sets: list[int], bounds: list[dict[str, Bounds | None]]):
        self.keys, self.slot_sets, self.bounds = keys, slot_sets, bounds

    @classmethod
    def from_spec(cls, spec: dict[str, Any] | None, sets: int) -> FreshInputs | None:
        if not spec:
            return None
        slots = spec["slots"]
        if len(slots) != len(CHECK_WINDOWS) + 2 or any(not 0 <= int(s) < sets for s, _ in slots):
            raise ValueError(f"fresh inputs: {len(slots)} checked calls on sets {slots} do not fit the schedule")
        bounds = [
            {name: Bounds(*per_set[s]) if per_set[s] is not None else None for name, per_set in spec["arrays"].items()}
            for s in range(sets)
        ]
        return cls([int(k) for _, k in slots], [int(s) for s, _ in slots], bounds)

    def plan(
        self, sequence: list[int], timed_from: int, max_rounds: int, rng: np.random.Generator
    ) -> dict[int, int]:
        """Round -> slot for every checked call but the final one: the first timed round of the first
        slot's set, and in each window a round of its slot's set drawn in secret."""
        first = next(r for r in range(timed_from, len(sequence)) if sequence[r] == self.slot_sets[0])
        chosen = {first: 0}
        for w, (lo, hi) in enumerate(_windows(max_rounds), start=1):
            rounds = [
                r
                for r in range(timed_from + lo, min(timed_from + hi, len(sequence)))
                if sequence[r] == self.slot_sets[w] and r not in chosen
            ]
            if rounds:
                chosen[rounds[int(rng.integers(len(rounds)))]] = w
        return chosen

    def final_round(self, sequence: list[int], after: int, chosen: dict[int, int]) -> int:
        """The first round from `after` on of the final slot's set that no other check took."""
        return next(
            r for r in range(after, len(sequence)) if sequence[r] == self.slot_sets[-1] and r not in chosen
        )


def within_set_rse(values: list[float], sets: list[int] | None = None) -> float:
    """Relative standard error of the mean time, from the spread within each input set: input sets of
    different cost (a power-law matrix's longest row) are a fixed effect, balanced by the set order,
    not noise, and must not keep a precise measurement running to its time budget."""
    x = np.asarray(values, dtype=np.float64)
    groups = np.asarray(sets if sets else [0] * x.size)
    kinds = np.unique(groups)
    dof = x.size - kinds.size
    if dof < 1:
        return float("inf")
    residual = x.copy()
    for g in kinds:
        residual[groups == g] -= x[groups == g].mean()
    spread = np.sqrt(np.square(residual).sum() / dof)
    return float(spread / np.sqrt(x.size) / max(x.mean(), 1e-12))


_FRESH = "fresh"  # the spare's CUDA start-up failed: the job gets a fresh process image


def _spare(libcudart: str) -> tuple[str, Any]:
    """A spare worker starts Python before any job exists, and its CUDA context when the parent
    says so (OPEN_CONTEXT: the running candidate's measurement is over), so the next candidate waits
    for neither; its job's path then arrives as one line on stdin."""
    ready = None
    line = sys.stdin.readline().strip()
    if line == OPEN_CONTEXT:
        if libcudart:
            try:
                from regrapht.eval.cudart import CudaRuntime

                t0 = time.perf_counter()
                rt = CudaRuntime(libcudart)
                rt.init(0)
                ready = (rt, time.perf_counter() - t0)
            except Exception:
                ready = _FRESH
        line = sys.stdin.readline().strip()
    if not line:  # the parent closed without a job: nothing ran
        os._exit(0)
    return line, ready


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    ready = None
    if argv[0] == "--spare":
        job_path, ready = _spare(argv[2] if len(argv) > 2 else "")
        if ready is _FRESH:
            # A runtime that failed to start (say, while a previous candidate held all GPU memory)
            # may stay failed for the life of the process. The job must not inherit that: run it in
            # a fresh image of this process (same pid and pipes, so the parent sees no difference).
            os.execv(sys.executable, [sys.executable, "-m", "regrapht.eval.worker", job_path, argv[1]])
        argv = [job_path, argv[1]]
    job = json.loads(Path(argv[0]).read_text())
    channel = Channel(int(argv[1]))
    worker = Worker(job, channel, ready if job["uses_cuda"] else None)
    try:
        worker.start()
        if not worker.confine():
            # Reported in the `sandbox` message; the parent decides (run again unconfined, or stop).
            channel.send(event=Event.DONE, messages=channel.count + 1)
            os._exit(4)
        worker.load()
        if job["cases"]:
            worker.run_cases()
            # A candidate times with its correctness buffers freed; the reference reuses its own.
            if not worker.trusted:
                worker.release_all()
        spec = job.get("timing")
        if spec is None and job.get("await_timing"):
            # The parent prepares the bench-size data only for candidates that passed every case.
            channel.send(event=Event.READY_FOR_TIMING)
            spec = read_timing_reply(sys.stdin.readline())
        if spec:
            worker.run_timing(spec)
    except Exception as exc:  # reported to the parent, which decides the status
        from regrapht.eval.cudart import CudaError

        if isinstance(exc, CudaError):
            channel.send(event=Event.CUDA_ERROR, name=exc.name, text=exc.text, where=exc.where)
        else:
            channel.send(event=Event.ERROR, kind=type(exc).__name__, text=str(exc)[:2000])
        channel.send(event=Event.DONE, messages=channel.count + 1)
        os._exit(3)
    channel.send(event=Event.DONE, messages=channel.count + 1)
    # Skip interpreter teardown: a candidate's static destructors never run after the verdict.
    os._exit(0)


if __name__ == "__main__":
    sys.exit(main())
