"""The launch probe of `regrapht tasks check`: the grids a library's kernels are launched with, as the
CUDA runtime saw them, in one call at a task's bench size.

A small library (regrapht/data/kernels/launch_probe.cpp) is preloaded in a child process ahead of
the CUDA runtime. Candidates are built with `-cudart shared`, so their `<<<>>>` launches bind to the
probe's entry points, which note each grid and block and forward to the runtime. The child loads the
bench inputs the evaluator drew (the case folder's .npy files), calls the function once, and reports
the largest launch and the GPU's multiprocessor count. It is a separate process so that a crash or a
hang of the probed code costs a finding, not the check.
"""

from __future__ import annotations

import ctypes
import hashlib
import json
import os
import subprocess
import sys
from dataclasses import asdict, dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from regrapht.eval import toolchain
from regrapht.eval.compile import ENTRY, default_cache_dir
from regrapht.tasks import Task

SOURCE = "data/kernels/launch_probe.cpp"


class ProbeError(RuntimeError):
    """The probe could not measure the launches (not a finding about the probed code)."""


@dataclass
class LaunchStats:
    launches: int  # kernel launches in the call
    max_threads: int  # threads of the largest launch
    max_blocks: int  # blocks of that launch
    sms: int  # multiprocessors of the GPU it ran on

    def to_dict(self) -> dict[str, int]:
        return asdict(self)


def build_probe(cache_dir: Path | None = None) -> Path:
    """The probe library, built once per source (cached by its hash)."""
    source = resources.files("regrapht").joinpath(SOURCE).read_text()
    digest = hashlib.sha256(source.encode()).hexdigest()[:16]
    out = (cache_dir or default_cache_dir()) / "launch_probe" / f"{digest}.so"
    if out.is_file():
        return out
    nvcc = toolchain.nvcc_path()
    if nvcc is None:
        raise ProbeError("nvcc is not available to build the launch probe")
    out.parent.mkdir(parents=True, exist_ok=True)
    src = out.with_suffix(".cpp")
    src.write_text(source)
    tmp = out.with_name(out.name + f".{os.getpid()}.tmp")
    cmd = [nvcc, "-cudart", "none", "-shared", "-Xcompiler", "-fPIC", "-o", str(tmp), str(src), "-ldl"]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        raise ProbeError(f"building the launch probe failed:\n{done.stderr[-2000:]}")
    os.replace(tmp, out)
    return out


def probe_launches(
    task: Task, library: str, case_dir: Path, sizes: dict[str, int], timeout_s: float = 300.0
) -> LaunchStats:
    """Call `library`'s task function once on the inputs in `case_dir` (at `sizes`) in a child
    process, and return the launches it made. Raises ProbeError when it cannot tell."""
    libcudart = toolchain.libcudart_path()
    if libcudart is None:
        raise ProbeError("no CUDA runtime library found")
    job = {
        "task": str(task.root),
        "library": library,
        "case_dir": str(case_dir),
        "sizes": sizes,
        "probe": str(build_probe()),
        "libcudart": str(libcudart),
    }
    try:
        done = subprocess.run(
            [sys.executable, "-m", "regrapht.eval.launch_probe", json.dumps(job)],
            capture_output=True,
            text=True,
            timeout=timeout_s,
        )
    except subprocess.TimeoutExpired:
        raise ProbeError(f"the probed call did not return within {timeout_s:.0f} s") from None
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        raise ProbeError(f"the probe exited with status {done.returncode}: {done.stderr.strip()[-1500:]}")
    data = json.loads(lines[-1])
    if "error" in data:
        raise ProbeError(data["error"])
    return LaunchStats(**{k: int(data[k]) for k in ("launches", "max_threads", "max_blocks", "sms")})


def _run(job: dict[str, Any]) -> dict[str, Any]:
    from regrapht.eval.cudart import ATTR_SM_COUNT, H2D, CudaRuntime
    from regrapht.tasks import load_task

    # Global, and before the runtime: the probed library's launch symbols must bind to the probe.
    probe = ctypes.CDLL(job["probe"], mode=os.RTLD_NOW | ctypes.RTLD_GLOBAL)
    rt = CudaRuntime(job["libcudart"], global_symbols=True)
    rt.init(0)
    task = load_task(job["task"])
    sizes = {k: int(v) for k, v in job["sizes"].items()}
    case_dir = Path(job["case_dir"])
    scalars = json.loads((case_dir / "scalars.json").read_text())
    lib = ctypes.CDLL(job["library"], mode=os.RTLD_NOW | os.RTLD_LOCAL)
    fn = getattr(lib, ENTRY)
    fn.restype = None
    argtypes, values, keep = [], [], []
    for arg in task.args:
        if not arg.is_array:
            ctype = np.ctypeslib.as_ctypes_type(arg.dtype.numpy)
            argtypes.append(ctype)
            values.append(ctype(scalars[arg.name]))
            continue
        nbytes = arg.n_elements(sizes) * arg.dtype.numpy.itemsize
        data = (
            np.load(case_dir / f"{arg.name}.npy", mmap_mode="r")
            if arg.is_read
            else np.zeros(arg.n_elements(sizes), dtype=arg.dtype.numpy)
        )
        argtypes.append(ctypes.c_void_p)
        if task.convention == "host":
            host = np.array(data, copy=True)  # writable, and alive until the call returns
            keep.append(host)
            values.append(ctypes.c_void_p(host.ctypes.data))
        else:
            ptr = rt.malloc(nbytes)
            if arg.is_read:
                rt.memcpy(ptr, np.ascontiguousarray(data).ctypes.data, nbytes, H2D)
            else:
                rt.memset(ptr, 0, nbytes)
            values.append(ctypes.c_void_p(ptr))
    fn.argtypes = argtypes
    fn(*values)
    code = rt.synchronize() or rt.last_error()
    if code:
        name, text = rt.error_text(code)
        return {"error": f"the probed call failed: {text} ({name})"}
    counters = {}
    for key in ("launches", "max_threads", "max_blocks"):
        getter = getattr(probe, f"regrapht_probe_{key}")
        getter.restype = ctypes.c_ulonglong
        counters[key] = int(getter())
    return counters | {"sms": rt.attribute(ATTR_SM_COUNT)}


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    try:
        result = _run(json.loads(args[0]))
    except Exception as exc:  # reported to the parent as a probe failure, not a finding
        result = {"error": f"{type(exc).__name__}: {exc}"}
    print(json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
