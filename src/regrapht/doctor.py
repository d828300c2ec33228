"""What this machine can run, and how to fix what is missing."""

from __future__ import annotations

import importlib.metadata
import shutil
import subprocess
import sys
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

from regrapht.eval import toolchain
from regrapht.install_hints import extra_install, torch_install


@dataclass
class Check:
    name: str
    ok: bool
    detail: str
    fix: str = ""
    required_for: str = ""

    def to_dict(self) -> dict:
        return asdict(self)


def _version(package: str) -> str | None:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return None


def _openmp_works() -> tuple[bool, str]:
    gxx = toolchain.gxx_path()
    if gxx is None:
        return False, "g++ not found"
    code = '#include <omp.h>\n#include <cstdio>\nint main(){int n=0;\n#pragma omp parallel reduction(+:n)\nn+=1;\nstd::printf("%d",n);}\n'
    with tempfile.TemporaryDirectory() as tmp:
        src, exe = Path(tmp) / "t.cpp", Path(tmp) / "t"
        src.write_text(code)
        build = subprocess.run(
            [gxx, "-fopenmp", "-O2", str(src), "-o", str(exe)], capture_output=True, text=True
        )
        if build.returncode != 0:
            return False, build.stderr.strip().splitlines()[-1] if build.stderr.strip() else "build failed"
        run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=30)
        return run.returncode == 0, f"{run.stdout.strip()} threads"


def run_checks() -> list[Check]:
    checks = [
        Check("python", sys.version_info >= (3, 10), sys.version.split()[0], "install Python 3.10 or newer")
    ]
    gxx = toolchain.gxx_version()
    checks.append(
        Check(
            "g++",
            gxx is not None,
            gxx or "not found",
            "apt-get install g++ (builds the serial reference and cpu candidates)",
            "everything",
        )
    )
    omp_ok, omp_detail = _openmp_works() if gxx else (False, "needs g++")
    checks.append(
        Check("OpenMP", omp_ok, omp_detail, "install g++ with libgomp (apt-get install g++)", "--target cpu")
    )
    nvcc = toolchain.nvcc_version()
    checks.append(
        Check(
            "nvcc",
            nvcc is not None,
            f"{nvcc} at {toolchain.nvcc_path()}" if nvcc else "not found",
            "install the CUDA toolkit and put its bin/ on PATH (or set CUDA_HOME)",
            "--target cuda",
        )
    )
    cudart = toolchain.libcudart_path()
    checks.append(
        Check(
            "libcudart",
            cudart is not None,
            str(cudart) if cudart else "not found",
            "the CUDA toolkit's lib64/libcudart.so.N must exist next to nvcc",
            "--target cuda",
        )
    )
    gpus = toolchain.gpus()
    if gpus:
        for i, gpu in enumerate(gpus):
            checks.append(
                Check(
                    f"GPU {i}",
                    True,
                    f"{gpu.name}, compute {gpu.compute_capability} ({gpu.arch}), "
                    f"{gpu.memory_mib} MiB, driver {gpu.driver}",
                    required_for="--target cuda",
                )
            )
    else:
        checks.append(
            Check(
                "GPU",
                False,
                "no NVIDIA GPU visible (nvidia-smi missing or finds none)",
                "run on a machine with an NVIDIA GPU and driver; meanwhile use --target cpu",
                "--target cuda",
            )
        )
    have_gpu = bool(gpus)
    torch = _version("torch")
    checks.append(
        Check(
            "torch",
            torch is not None,
            torch or "not installed",
            f"{torch_install(have_gpu)} (needed only for in-process transformers models and embeddings)",
            "hf: models",
        )
    )
    for package, extra, purpose in (
        ("transformers", "hf", "hf: models"),
        ("vllm", "vllm", "vllm: models"),
        ("sentence-transformers", "embed", "relabeling and retrieval by embeddings"),
        ("ray", "ray", "evaluations across hosts (--ray)"),
    ):
        version = _version(package)
        checks.append(
            Check(package, version is not None, version or "not installed", extra_install(extra, have_gpu), purpose)
        )
    # a dependency of regrapht itself, not an extra: missing only from a broken install
    version = _version("tree-sitter-cuda")
    checks.append(
        Check(
            "tree-sitter-cuda",
            version is not None,
            version or "not installed",
            "pip install tree-sitter tree-sitter-cuda (regrapht's own dependencies; reinstall regrapht)",
            "method recognition",
        )
    )
    shm = Path("/dev/shm")
    free = shutil.disk_usage(shm).free if shm.is_dir() else 0
    checks.append(
        Check(
            "/dev/shm",
            free > (4 << 30),
            f"{free / (1 << 30):.1f} GiB free",
            "scratch falls back to the temp folder (slower for large inputs)",
            "fast scratch",
        )
    )
    return checks
