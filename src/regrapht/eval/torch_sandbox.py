"""The OS sandbox of a torch candidate's worker (eval/sandbox.py's Landlock and seccomp, with the
torch worker's own rules).

What differs from the serial worker's sandbox (eval/candidates.py, SandboxPolicy):
- Reads: the task's folder (the reference module), the extensions the parent builds
  (`CACHE/torch-ext`), the system's libraries, Python's installation (torch, Triton, the CUDA wheels,
  Triton's bundled ptxas) and the CUDA toolkit. Not the evaluator's scratch: the reference's folder,
  which holds the float64 expected outputs, and other candidates' folders lie beside this one there.
- Writes: the candidate's own folder only. Triton's and inductor's caches and the temporary folder
  point into it (`env`), so nothing a candidate writes reaches a later candidate or a baseline's
  compilation (a shared inductor cache would let a candidate plant a slow compiled `Model`).
- Processes: Triton runs ptxas and the C compiler (its launcher stub), inductor the C++ compiler. A
  worker that may need them (cuda, or any torch.compile baseline) keeps fork and exec; its children
  inherit the Landlock domain and the seccomp filter, so they read, write and connect no more than
  the worker does. On the cpu target without a compile baseline, creating a process kills the worker.
- Network: sockets other than AF_UNIX fail (seccomp), TCP bind and connect too with Landlock ABI 4.
  AF_UNIX stays: Python's multiprocessing and the CUDA driver use it within the process tree.
"""

from __future__ import annotations

import errno
import os
import threading
import time
import traceback
from pathlib import Path
from typing import Any

from regrapht.eval import sandbox, toolchain

# Beyond eval/sandbox.py's system folders: the compilers' own folders where they are not beneath /usr
# (Triton runs /sbin/ldconfig to find libcuda), and the account files a library may look a user up in.
_TORCH_READ = ("/bin", "/sbin", "/etc/passwd", "/etc/group", "/etc/nsswitch.conf", "/etc/localtime")

# Environment variables that would send a compiler's or library's files outside the scratch.
_SCRATCH_ENV = {
    "TMPDIR": "tmp",
    "TRITON_CACHE_DIR": "triton",
    "TRITON_HOME": "triton-home",
    "TORCHINDUCTOR_CACHE_DIR": "inductor",
    "XDG_CACHE_HOME": "cache",
}


def processes_needed(target: str, baselines: tuple[str, ...]) -> bool:
    """Whether the worker must be able to start compilers (Triton on cuda, inductor for compile)."""
    return target == "cuda" or any(b in ("compile", "max-autotune") for b in baselines)


def spec(task_dir: Path, scratch: Path, cache_dir: Path, target: str, baselines: tuple[str, ...],
         secret_dirs: list[Path], require: bool) -> dict[str, Any]:  # fmt: skip
    """What the candidate's worker may read and write, for the job file."""
    # Landlock grants only paths that exist: made now, a fresh cache's extension folder stays readable
    # when the first build lands in it after the worker confined itself.
    (cache_dir / "torch-ext").mkdir(parents=True, exist_ok=True)
    read = [str(task_dir), str(cache_dir / "torch-ext"), *_TORCH_READ]
    cuda_home = toolchain.cuda_home() if target == "cuda" else None
    if cuda_home is not None:
        read.append(str(cuda_home))
    return {"read": read, "write": [str(scratch)], "processes": processes_needed(target, baselines),
            "secret": [str(p) for p in secret_dirs], "require": require}  # fmt: skip


def env(scratch: Path) -> dict[str, str]:
    """The worker's environment additions: every cache and temporary folder inside its scratch."""
    out = {}
    for name, sub in _SCRATCH_ENV.items():
        folder = scratch / "env" / sub
        folder.mkdir(parents=True, exist_ok=True)
        out[name] = str(folder)
    return out


def _beneath(path: str, root: str) -> bool:
    path, root = os.path.abspath(path), os.path.abspath(root)
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def exposed(secret: list[str], readable: list[str]) -> list[str]:
    """The secret folders (the expected outputs) that lie beneath a folder the worker may read."""
    return [s for s in secret if any(_beneath(s, r) for r in readable)]


def enter(job_spec: dict[str, Any], scratch: Path, cuda: bool) -> dict[str, Any]:
    """Confine this worker (called once its own setup is done, before the candidate is imported).
    The report has eval/sandbox.py's keys and `broken`: why the harness cannot work inside (then the
    candidate must not run here), or None."""
    os.chdir(scratch)  # a candidate's relative paths land in its scratch
    began = time.perf_counter()
    readable = [*sandbox.system_read_paths(), *job_spec["read"]]
    leaked = exposed(job_spec.get("secret", []), readable)
    if leaked:
        return {"landlock": None, "seccomp": False, "reason": None, "seconds": 0.0,
                "broken": f"the expected outputs ({leaked[0]}) lie beneath a folder the worker must read"}  # fmt: skip
    report = sandbox.confine(job_spec["read"], job_spec["write"], processes=bool(job_spec.get("processes")))
    report["processes"] = bool(job_spec.get("processes"))
    report["broken"] = _harness_works(scratch, cuda) if report["landlock"] or report["seccomp"] else None
    report["seconds"] = round(time.perf_counter() - began, 6)
    return report


def _harness_works(scratch: Path, cuda: bool) -> str | None:
    """What the harness does inside the sandbox, once: save and load a tensor in the scratch, start a
    thread, compute on the device. The error when it fails: the sandbox broke the harness here."""
    import torch

    try:
        probe = scratch / ".sandbox-probe.pt"
        torch.save([torch.arange(3)], probe)
        if not torch.equal(torch.load(probe, weights_only=True)[0], torch.arange(3)):
            return "a tensor saved in the scratch loaded back differently"
        probe.unlink()
        thread = threading.Thread(target=lambda: None)
        thread.start()
        thread.join()
        x = torch.ones(1 << 10, device="cuda" if cuda else "cpu")
        if float(x.sum()) != 1024.0:
            return "a reduction inside the sandbox gave a wrong sum"
        if cuda:
            torch.cuda.synchronize()
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"[:500]
    return None


def denial(exc: BaseException) -> str | None:
    """What the sandbox refused, when `exc` (or an exception it came from) is its refusal: a permission
    error on a file outside the scratch and inputs, or on a socket."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, OSError) and current.errno in (errno.EACCES, errno.EPERM):
            name = current.filename
            frames = {Path(f.filename).name for f in traceback.extract_tb(current.__traceback__)}
            if name is not None:
                what = f"access to {name} (outside the candidate's scratch folder and its inputs)"
            elif "socket.py" in frames:
                what = "opening a network socket"
            else:
                what = "a system call a candidate may not make"
            return f"the sandbox refused {what}: {type(current).__name__}: {current}"
        current = current.__cause__ or current.__context__
    return None
