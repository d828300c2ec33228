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
import os
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from regrapht.eval.perturb import Bounds
from regrapht.eval.protocol import OPEN_CONTEXT, Event, read_timing_reply
from regrapht.eval.stop_rule import warm as warm_stop_rule
from regrapht.eval.stop_rule import within_set_rse
from regrapht.eval.timing_plan import CHECK_WINDOWS, FreshInputs, enough, set_sequence
from regrapht.eval.worker_memory import STAGE_BYTES, STAGE_SLOTS, DeviceMemory, HostMemory, late_elements

# Re-exported: the worker's memory and timing plan were part of this module.
__all__ = [
    "CHECK_WINDOWS",
    "STAGE_BYTES",
    "STAGE_SLOTS",
    "Channel",
    "DeviceMemory",
    "FreshInputs",
    "HostMemory",
    "Worker",
    "enough",
    "late_elements",
    "main",
    "set_sequence",
    "within_set_rse",
]

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
        self.mapped_files: dict[Path, np.ndarray] = {}
        self.ready_at: float | None = None  # a spare's: when it was ready for its job (await_job)
        # Bench inputs copied from the parent's masters before the library loads (take_inputs):
        # (set, name) -> (buffer, nbytes), for the bench folder `prestaged_dir`; what LOADED reports.
        self.prestaged: dict[tuple[int, str], tuple[Any, int]] = {}
        self.prestaged_dir: str | None = None
        self.inputs_report: dict[str, Any] | None = None

    # ---- setup -----------------------------------------------------------------------------
    def start(self) -> None:
        info: dict[str, Any] = {"pid": os.getpid(), "nonce": self.job.get("nonce")}
        if self.rt is not None:
            if self.ready:
                info["context_s"], info["spare"] = self.ready[1], True
                if self.ready_at is not None:
                    info["ready_at"] = self.ready_at
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

    def take_inputs(self) -> None:
        """Copy the bench inputs from the parent's device masters (eval/worker_inputs.py), before any
        candidate code is loaded and before the sandbox (whose seccomp filter may not allow mapping
        another process's memory). Nothing to do without a job's `inputs`; a failure is reported
        and the timing loop uploads the inputs from their files instead."""
        spec = self.job.get("inputs")
        if not spec:
            return
        if self.rt is None or not self.job["device_buffers"]:
            Path(spec["file"]).unlink(missing_ok=True)  # handles no one here will read
            return
        from regrapht.eval.worker_inputs import copy_from_masters

        copied, self.inputs_report = copy_from_masters(self.rt, self.mem.alloc, self.mem.free, spec, self.guard)
        sizes = {(int(s), str(name)): int(nbytes) for s, name, nbytes in spec["arrays"]}
        self.prestaged = {key: (handle, sizes[key]) for key, handle in copied.items()}
        self.prestaged_dir = str(spec["dir"])

    def load(self) -> None:
        for name, path in self.job["libs"].items():
            lib = ctypes.CDLL(path, mode=os.RTLD_NOW | os.RTLD_LOCAL)
            fn = getattr(lib, ENTRY)
            fn.restype = None
            fn.argtypes = [ctypes.c_void_p if a["array"] else _CTYPES[a["dtype"]] for a in self.job["args"]]
            self.entries[name] = fn
        extra = {} if self.inputs_report is None else {"inputs": self.inputs_report}
        self.channel.send(event=Event.LOADED, libs=sorted(self.entries), **extra)

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

    def sync_and_check(self, where: str) -> None:
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

    def arguments(
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
                    a["name"]: self.mapped(case_dir / f"{a['name']}.npy")
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
                direct = {n: inputs[n] for n in self.read_in_place()}
                for run in range(runs):
                    handles = self._prepare(
                        case["nbytes"], inputs, self.poison[run % len(self.poison)], skip=set(direct)
                    )
                    self.channel.send(event=Event.CALLING, lib=lib, case=index, run=run)
                    fn(*self.arguments(handles, scalars, direct))
                    snapshots = {} if self.trusted else self.snapshot(handles, case["nbytes"])
                    self.sync_and_check(f"after the call ({case['label']}, run {run + 1})")
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

    def snapshot(self, handles: dict[str, Any], nbytes: dict[str, int]) -> dict[str, Any]:
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

    def read_in_place(self) -> set[str]:
        """Inputs the trusted reference reads where its files are mapped, never copied: a gigabyte
        task's outputs then cost the calls, not copies of their inputs. Never a candidate's (its
        inputs get guards and change checks), nor an array the reference writes."""
        if not self.trusted or self.job["device_buffers"]:
            return set()
        return {a["name"] for a in self.job["args"] if a["array"] and a["role"] == "input"}

    def mapped(self, path: Path) -> np.ndarray:
        """An input file, mapped. The reference reads in place from one mapping per file, shared by
        its output runs and its timed rounds (whose pages the first calls have touched), mapped
        copy-on-write, so a reference that writes to an input (declared without const) changes only
        its own pages, never the file the candidates read."""
        if not self.read_in_place():
            return np.load(path, mmap_mode="r")  # a candidate's: copied into its buffers, then let go
        if path not in self.mapped_files:
            self.mapped_files[path] = np.load(path, mmap_mode="c")
        return self.mapped_files[path]

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
        """Time the libraries on the bench data, interleaved, and send the samples and checked calls."""
        from regrapht.eval.timing_loop import TimingRun

        TimingRun(self, spec).run()

    def default_flush_bytes(self) -> int:
        """Twice the last-level cache, so every timed call starts with cold caches."""
        if self.rt is not None:
            return max(2 * self.rt.attribute(38), 64 << 20)
        try:
            text = Path("/sys/devices/system/cpu/cpu0/cache/index3/size").read_text().strip()
            size = int(text.rstrip("KMG")) << {"K": 10, "M": 20, "G": 30}.get(text[-1], 0)
            return max(2 * size, 32 << 20)
        except (OSError, ValueError):
            return 64 << 20

    def raise_if(self, code: int, where: str) -> None:
        if code and self.rt is not None:
            from regrapht.eval.cudart import CudaError

            name, text = self.rt.error_text(code)
            raise CudaError(code, name, text, where)

FRESH_IMAGE = "fresh"  # the spare's CUDA start-up failed: the job gets a fresh process image


def await_job(libcudart: str) -> tuple[str, Any, float]:
    """A spare worker starts Python before any job exists, and its CUDA context when the parent
    says so (OPEN_CONTEXT: the running candidate's measurement is over), so the next candidate waits
    for neither; its job's path then arrives as one line on stdin. Also returns when (CLOCK_MONOTONIC,
    shared with the parent) the spare was ready for its job: a job sent before that waited for the
    spare's context, on its worker's time."""
    ready = None
    warm_stop_rule()  # its first evaluation's imports and tables, off the next candidate's held time
    ready_at = time.monotonic()
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
                ready = FRESH_IMAGE
        ready_at = time.monotonic()
        line = sys.stdin.readline().strip()
    if not line:  # the parent closed without a job: nothing ran
        os._exit(0)
    return line, ready, ready_at


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    ready, ready_at = None, None
    if argv[0] == "--spare":
        job_path, ready, ready_at = await_job(argv[2] if len(argv) > 2 else "")
        if ready is FRESH_IMAGE:
            # A runtime that failed to start (say, while a previous candidate held all GPU memory)
            # may stay failed for the life of the process. The job must not inherit that: run it in
            # a fresh image of this process (same pid and pipes, so the parent sees no difference).
            os.execv(sys.executable, [sys.executable, "-m", "regrapht.eval.worker", job_path, argv[1]])
        argv = [job_path, argv[1]]
    job = json.loads(Path(argv[0]).read_text())
    channel = Channel(int(argv[1]))
    worker = Worker(job, channel, ready if job["uses_cuda"] else None)
    worker.ready_at = ready_at
    try:
        worker.start()
        worker.take_inputs()
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
