"""Finding the compilers and the GPU, once per process."""

from __future__ import annotations

import functools
import os
import platform
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path


def _run(cmd: list[str], timeout: float = 30) -> str | None:
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout if out.returncode == 0 else None


@functools.cache
def nvcc_path() -> str | None:
    found = shutil.which("nvcc")
    if found:
        return found
    for home in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"):
        if home and (Path(home) / "bin" / "nvcc").is_file():
            return str(Path(home) / "bin" / "nvcc")
    return None


@functools.cache
def cuda_home() -> Path | None:
    """The toolkit nvcc belongs to (its lib64 holds the libcudart the harness shares with candidates)."""
    nvcc = nvcc_path()
    if nvcc is None:
        return None
    script = Path(nvcc).read_text(errors="ignore") if Path(nvcc).stat().st_size < 4096 else ""
    # Some images install a small wrapper script instead of the real binary.
    match = re.search(r"(/\S+?)/bin/nvcc", script)
    if match and Path(match.group(1)).is_dir():
        return Path(match.group(1))
    return Path(os.path.realpath(nvcc)).parent.parent


@functools.cache
def nvcc_version() -> str | None:
    nvcc = nvcc_path()
    out = _run([nvcc, "--version"]) if nvcc else None
    if not out:
        return None
    match = re.search(r"release ([\d.]+), V([\d.]+)", out)
    return match.group(2) if match else out.strip().splitlines()[-1]


@functools.cache
def gxx_path() -> str | None:
    return shutil.which(os.environ.get("CXX", "g++")) or shutil.which("g++")


@functools.cache
def gxx_version() -> str | None:
    gxx = gxx_path()
    out = _run([gxx, "--version"]) if gxx else None
    return out.splitlines()[0].strip() if out else None


@functools.cache
def libcudart_path() -> Path | None:
    home = cuda_home()
    candidates = []
    if home:
        candidates += sorted((home / "lib64").glob("libcudart.so.*")) + sorted(
            (home / "targets").glob("*/lib/libcudart.so.*")
        )
    for path in candidates:
        if path.is_file() and re.fullmatch(r"libcudart\.so\.\d+", path.name):
            return path
    return None


@dataclass(frozen=True)
class GpuInfo:
    name: str
    compute_capability: str  # "9.0"
    driver: str
    memory_mib: int
    index: int = -1  # nvidia-smi's index on this host (PCI bus order); -1 when unknown
    uuid: str = ""

    @property
    def arch(self) -> str:
        """The nvcc architecture name; 9.0 gets sm_90a so Hopper-only instructions compile."""
        major, minor = self.compute_capability.split(".")
        return f"sm_{major}{minor}" + ("a" if (major, minor) == ("9", "0") else "")


@functools.cache
def gpus() -> tuple[GpuInfo, ...]:
    """The GPUs CUDA shows this process: nvidia-smi lists every GPU of the host, so those that
    CUDA_VISIBLE_DEVICES leaves out are dropped here (a lane pinned to one GPU names that GPU)."""
    if shutil.which("nvidia-smi") is None:
        return ()
    out = _run(
        [
            "nvidia-smi",
            "--query-gpu=name,compute_cap,driver_version,memory.total,index,uuid",
            "--format=csv,noheader,nounits",
        ]
    )
    if not out:
        return ()
    found = []
    for line in out.strip().splitlines():
        parts = [p.strip() for p in line.split(",")]
        if len(parts) == 6 and parts[4].isdigit():
            found.append(GpuInfo(parts[0], parts[1], parts[2], int(float(parts[3])), int(parts[4]), parts[5]))
    return visible(tuple(found), os.environ.get("CUDA_VISIBLE_DEVICES"))


def visible(host: tuple[GpuInfo, ...], mask: str | None) -> tuple[GpuInfo, ...]:
    """The host's GPUs that a CUDA_VISIBLE_DEVICES value shows, in its order. Entries are indices or
    (prefixes of) UUIDs; as in CUDA, the list ends at the first entry that names no GPU. MIG slices
    (MIG-...) are not resolved: the host's list is kept as it is."""
    if mask is None:
        return host
    shown: list[GpuInfo] = []
    for token in (t.strip() for t in mask.split(",")):
        if token.startswith("MIG-"):
            return host
        if token.isdigit():
            match = [g for g in host if g.index == int(token)]
        else:
            match = [g for g in host if token and g.uuid.startswith(token)]
        if len(match) != 1 or match[0] in shown:
            break
        shown.append(match[0])
    return tuple(shown)


DEFAULT_ARCH = "sm_90a"


def cuda_arch() -> str:
    """The architecture to compile for: REGRAPHT_CUDA_ARCH, else the first GPU's, else Hopper."""
    override = os.environ.get("REGRAPHT_CUDA_ARCH")
    if override:
        return override
    found = gpus()
    return found[0].arch if found else DEFAULT_ARCH


def usable_core_set() -> set[int]:
    """The cores this process may run on (its CPU affinity: taskset, a container's cpuset); empty
    where the platform does not say (not Linux)."""
    try:
        return set(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return set()


def usable_cores() -> int:
    """How many cores this process may run on (`usable_core_set`), which os.cpu_count() ignores.
    Compile pools and lanes sized by the host's count would oversubscribe a pinned run."""
    return max(1, len(usable_core_set()) or os.cpu_count() or 1)


@functools.cache
def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def fingerprint(target: str, device: dict | None = None) -> dict:
    """The environment an evaluation record was made in: the GPU and its driver (cuda), the CUDA
    runtime and driver API versions the first worker measured (`device`), compilers, CPU, versions."""
    import numpy as np

    import regrapht

    gpu = gpus()[0] if target == "cuda" and gpus() else None
    device = device or {}
    return {
        "target": target,
        "gpu": gpu.name if gpu else None,
        "driver": gpu.driver if gpu else None,
        "cuda_runtime": device.get("cuda_runtime"),
        "cuda_driver_api": device.get("cuda_driver"),
        "arch": cuda_arch() if target == "cuda" else None,
        "nvcc": nvcc_version() if target == "cuda" else None,
        "gxx": gxx_version(),
        "cpu": cpu_model(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "regrapht": regrapht.__version__,
    }
