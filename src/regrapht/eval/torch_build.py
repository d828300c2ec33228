"""Building torch extensions for candidates: content-addressed, with a shared precompiled header.

`torch.utils.cpp_extension.load_inline` runs ninja and parses the whole of <torch/extension.h> for
every candidate. Inside a torch worker, `load_inline` is replaced (`install`) by a function that sends
the sources to the parent, which builds here (usually before the worker started: eval/torch_prebuild.py):
the C++ part against a precompiled <torch/extension.h> built once per torch version and flags
(`_pch`), the CUDA part with nvcc for the GPU at hand only, its host half at HOST_OPT and its
<torch/extension.h> served by a light header (falling back to torch's own where the source needs
more), both at once; the result is kept under a hash of everything that went into it, so a repeated
or resubmitted candidate costs one file lookup. The worker then loads the module from the cache;
compiling happens outside the candidate's (possibly sandboxed) process. docs/evaluation.md,
"Building a candidate's extension", gives the reasons and docs/benchmarks.md the measurements.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import subprocess
import sys
import sysconfig
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from regrapht.eval import toolchain
from regrapht.eval.compile import default_cache_dir

PCH_HEADER = "regrapht_torch_ext.h"
_DIAG_LIMIT = 4000
# nvcc's -O is the host compiler's level: in the CUDA translation unit it optimizes only the wrapper
# that checks tensors and launches kernels, yet at -O3 g++ spends most of the build on torch's inline
# headers (docs/benchmarks.md, "Building a candidate's extension"). Device code is optimized by
# cicc/ptxas whatever this says.
HOST_OPT = "-O1"
# What the CUDA translation unit gets for <torch/extension.h>: the tensor API without pybind11,
# Python.h and the C++ frontend (torch/all.h). A source that needs those fails to compile with it and
# is compiled again against the real header.
LIGHT_EXTENSION_H = "#pragma once\n#include <torch/types.h>\n"
# Bumped whenever the build's recipe changes in a way the cache key would not otherwise see.
RECIPE = 2
_PCH_LOCKS: dict[str, threading.Lock] = {}
_PCH_GUARD = threading.Lock()


@dataclass
class BuildResult:
    ok: bool
    library: str | None
    module: str | None  # the Python module name the library initialises
    seconds: float
    cached: bool
    diagnostics: str = ""
    pch: bool = False  # the C++ part used the shared precompiled header
    light: bool = False  # the CUDA part compiled against the light header (else torch/extension.h in full)
    phases: dict[str, float] = field(default_factory=dict)  # seconds per compile/link step
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def spec_from_call(args: tuple, kwargs: dict[str, Any]) -> dict[str, Any]:
    """load_inline's arguments as plain data (what the worker sends to the parent)."""
    names = ("name", "cpp_sources", "cuda_sources", "functions", "extra_cflags", "extra_cuda_cflags",
             "extra_ldflags", "extra_include_paths")  # fmt: skip
    bound = dict(zip(names, args))
    bound.update({k: v for k, v in kwargs.items() if k in names})

    def strings(value: Any) -> list[str]:
        if value is None:
            return []
        return [value] if isinstance(value, str) else [str(v) for v in value]

    functions = bound.get("functions") or []
    if isinstance(functions, str):
        functions = [functions]
    if isinstance(functions, dict):
        functions = list(functions)
    return {
        "name": str(bound.get("name", "ext")),
        "cpp_sources": strings(bound.get("cpp_sources")),
        "cuda_sources": strings(bound.get("cuda_sources")),
        "functions": [str(f) for f in functions],
        "extra_cflags": strings(bound.get("extra_cflags")),
        "extra_cuda_cflags": strings(bound.get("extra_cuda_cflags")),
        "extra_ldflags": strings(bound.get("extra_ldflags")),
        "extra_include_paths": strings(bound.get("extra_include_paths")),
    }


def _torch_layout(cuda: bool) -> dict[str, Any]:
    import torch
    from torch.utils import cpp_extension

    try:
        includes = cpp_extension.include_paths(device_type="cpu")
    except TypeError:  # older torch: include_paths(cuda: bool)
        includes = cpp_extension.include_paths(False)  # type: ignore[arg-type]
    home = toolchain.cuda_home()
    if cuda and home is not None:  # the toolkit nvcc belongs to, whether or not CUDA_HOME is set
        includes = [*includes, str(home / "include")]
    import inspect

    # The language standard and nvcc flags this torch's own builder uses (its headers expect them).
    std = "c++20" if "-std=c++20" in inspect.getsource(cpp_extension) else "c++17"
    return {
        "std": std,
        "nvcc_flags": [f for f in getattr(cpp_extension, "COMMON_NVCC_FLAGS", []) if f.startswith(("-D", "--expt"))],
        "torch": torch.__version__,
        "abi": int(torch._C._GLIBCXX_USE_CXX11_ABI),
        "includes": [*includes, sysconfig.get_paths()["include"]],
        "lib": str(Path(torch.__file__).parent / "lib"),
        "python": sysconfig.get_python_version(),
    }


def _cxx_flags(layout: dict[str, Any], cuda: bool) -> list[str]:
    flags = ["-O3", f"-std={layout['std']}", "-fPIC", f"-D_GLIBCXX_USE_CXX11_ABI={layout['abi']}",
             "-DTORCH_API_INCLUDE_EXTENSION_H", "-w"]  # fmt: skip
    if cuda:
        flags.append("-DWITH_CUDA")
    return flags + [f"-I{p}" for p in layout["includes"]]


def _pch(cache: Path, layout: dict[str, Any], flags: list[str]) -> Path | None:
    """A folder holding <torch/extension.h> precompiled with `flags`, built once and shared."""
    key = hashlib.sha256(json.dumps([layout, flags, toolchain.gxx_version()]).encode()).hexdigest()[:20]
    folder = cache / "torch-pch" / key
    if (folder / f"{PCH_HEADER}.gch").is_file():
        return folder
    with _PCH_GUARD:
        lock = _PCH_LOCKS.setdefault(str(folder), threading.Lock())
    with lock:  # a pool's builders wait for one precompile rather than each making its own
        return _make_pch(folder, flags)


def _make_pch(folder: Path, flags: list[str]) -> Path | None:
    if (folder / f"{PCH_HEADER}.gch").is_file():
        return folder
    gxx = toolchain.gxx_path()
    if gxx is None:
        return None
    folder.mkdir(parents=True, exist_ok=True)
    (folder / PCH_HEADER).write_text("#pragma once\n#include <torch/extension.h>\n")
    fd, tmp = tempfile.mkstemp(suffix=".gch", dir=folder)
    os.close(fd)
    proc = subprocess.run([gxx, *flags, "-x", "c++-header", str(folder / PCH_HEADER), "-o", tmp],
                          capture_output=True, text=True, timeout=600)  # fmt: skip
    if proc.returncode != 0:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        return None
    os.replace(tmp, folder / f"{PCH_HEADER}.gch")  # atomic: concurrent builders agree on one file
    return folder


def _binding(functions: list[str], module: str) -> str:
    lines = [f"#define TORCH_EXTENSION_NAME {module}", f"PYBIND11_MODULE({module}, m) {{"]
    lines += [f'  m.def("{f}", &{f}, "{f}");' for f in functions]
    return "\n".join([*lines, "}", ""])


def build_key(spec: dict[str, Any], target: str) -> str:
    """The content address of the extension `spec` builds for `target`: everything that goes into
    the library (sources, flags, torch's layout, compilers, architecture, the build recipe)."""
    cuda = bool(spec["cuda_sources"])
    layout = _torch_layout(cuda)
    arch = toolchain.cuda_arch() if cuda else None
    compilers = [toolchain.gxx_version(), toolchain.nvcc_version() if cuda else None]
    blob = json.dumps([spec, layout, _cxx_flags(layout, cuda), arch, compilers, target, RECIPE])
    return hashlib.sha256(blob.encode()).hexdigest()[:24]


def build(spec: dict[str, Any], target: str, cache_dir: Path | None = None, timeout_s: float = 300.0) -> BuildResult:
    """Build (or find) the extension `spec` describes (see `spec_from_call`) for `target`."""
    began = time.monotonic()
    cuda = bool(spec["cuda_sources"])
    if cuda and target != "cuda":
        return BuildResult(False, None, None, 0.0, False, "CUDA sources cannot run on the cpu target; "
                           "give C++ in cpp_sources only, or evaluate with --target cuda")  # fmt: skip
    for name in spec["functions"]:
        if not re.fullmatch(r"[A-Za-z_]\w*", name):
            return BuildResult(False, None, None, 0.0, False, f"functions: {name!r} is not a C++ identifier")
    if cuda and toolchain.nvcc_path() is None:
        return BuildResult(False, None, None, 0.0, False, "nvcc was not found (set CUDA_HOME or PATH)")
    key = build_key(spec, target)
    module = f"regrapht_ext_{key}"
    cache = Path(cache_dir) if cache_dir else default_cache_dir()
    folder = cache / "torch-ext" / key
    library = folder / f"{module}.so"
    if library.is_file():
        return BuildResult(True, str(library), module, time.monotonic() - began, True)
    folder.mkdir(parents=True, exist_ok=True)
    # Objects go to a folder of this attempt's own: two processes building one key never share a file.
    with tempfile.TemporaryDirectory(dir=folder, prefix="work-") as work_dir:
        result = _compile_and_link(spec, module, Path(work_dir), library, cache, timeout_s)
    result.seconds = time.monotonic() - began
    return result


def _compile_and_link(spec: dict[str, Any], module: str, work: Path, library: Path, cache: Path,
                      timeout_s: float) -> BuildResult:  # fmt: skip
    cuda = bool(spec["cuda_sources"])
    layout = _torch_layout(cuda)
    flags = _cxx_flags(layout, cuda)
    phases: dict[str, float] = {}
    notes: list[str] = []
    objects = [work / "main.o"]
    link_libs = ["-lc10", "-ltorch", "-ltorch_cpu", "-ltorch_python"]
    results: dict[str, tuple[bool, str]] = {}
    light = False
    with ThreadPoolExecutor(1) as pool:
        nvcc = None
        if cuda:  # nvcc starts first: it is the longer half, and needs no precompiled header
            cuda_flags, dropped = _candidate_cuda_flags(spec["extra_cuda_cflags"])
            if dropped:
                notes.append(f"host optimization {' '.join(dropped)} of the CUDA translation unit replaced by "
                             f"{HOST_OPT} (it compiles only the launching wrapper; device code is optimized as before)")  # fmt: skip
            nvcc = pool.submit(_nvcc, spec, layout, cuda_flags, work, cache, timeout_s)
            objects.append(work / "kernels.o")
            cuda_lib = toolchain.cuda_home() / "lib64" if toolchain.cuda_home() else None
            link_libs = [*link_libs, "-lc10_cuda", "-ltorch_cuda", *([f"-L{cuda_lib}"] if cuda_lib else []), "-lcudart"]
        began = time.monotonic()
        pch = _pch(cache, layout, flags)  # the first build of a cache makes it (others wait for that one)
        phases["pch"] = round(time.monotonic() - began, 3)
        main = work / "main.cpp"
        include = f'#include "{PCH_HEADER}"\n' if pch else "#include <torch/extension.h>\n"
        main.write_text(include + "\n".join(spec["cpp_sources"]) + "\n" + _binding(spec["functions"], module))
        cxx = [toolchain.gxx_path() or "g++", *flags, *([f"-I{pch}", "-Winvalid-pch"] if pch else []),
               *spec["extra_cflags"], *[f"-I{p}" for p in spec["extra_include_paths"]],
               "-c", str(main), "-o", str(work / "main.o")]  # fmt: skip
        ok, out, phases["cxx"] = _timed_run(cxx, timeout_s)
        results["cxx"] = (ok, out)
        if nvcc is not None:
            ok, out, light, nvcc_phases = nvcc.result()
            results["nvcc"] = (ok, out)
            phases.update(nvcc_phases)
    phases = {k: round(v, 3) for k, v in phases.items()}
    failed = [out for ok, out in results.values() if not ok]
    if failed:
        return BuildResult(False, None, None, 0.0, False, _trim("\n".join(failed)), pch is not None,
                           light, phases, notes)  # fmt: skip
    fd, tmp = tempfile.mkstemp(suffix=".so", dir=library.parent)
    os.close(fd)
    link = [toolchain.gxx_path() or "g++", "-shared", *map(str, objects), f"-L{layout['lib']}",
            f"-Wl,-rpath,{layout['lib']}", *link_libs, *spec["extra_ldflags"], "-o", tmp]  # fmt: skip
    ok, out, seconds = _timed_run(link, timeout_s)
    phases["link"] = round(seconds, 3)
    if not ok:
        with contextlib.suppress(FileNotFoundError):  # the linker removes what it could not finish
            os.unlink(tmp)
        return BuildResult(False, None, None, 0.0, False, _trim(out), pch is not None, light, phases, notes)
    os.replace(tmp, library)
    return BuildResult(True, str(library), module, 0.0, False, "", pch is not None, light, phases, notes)


def _nvcc(spec: dict[str, Any], layout: dict[str, Any], cuda_flags: list[str], work: Path, cache: Path,
          timeout_s: float) -> tuple[bool, str, bool, dict[str, float]]:  # fmt: skip
    """The CUDA translation unit compiled: (ok, diagnostics, light header used, seconds per attempt)."""
    kernels = work / "kernels.cu"
    kernels.write_text("#include <torch/types.h>\n#include <cuda.h>\n#include <cuda_runtime.h>\n"
                       + "\n".join(spec["cuda_sources"]) + "\n")  # fmt: skip
    include_paths = spec["extra_include_paths"]
    ok, out, seconds = _timed_run(_nvcc_command(layout, kernels, work / "kernels.o", cuda_flags, include_paths,
                                                light=_light_dir(cache)), timeout_s)  # fmt: skip
    if ok:
        return True, out, True, {"nvcc": seconds}
    # The light header lacks something the source uses (pybind11, the C++ frontend): the source gets
    # exactly what it asked for, <torch/extension.h> in full, and that compile's verdict.
    ok, out, full = _timed_run(_nvcc_command(layout, kernels, work / "kernels.o", cuda_flags, include_paths, light=None), timeout_s)
    return ok, out, False, {"nvcc": seconds, "nvcc_full": full}


def _candidate_cuda_flags(flags: list[str]) -> tuple[list[str], list[str]]:
    """The candidate's nvcc flags less its host optimization level (`-O3`, `-Xcompiler -O2`...):
    nvcc's -O sets only the host compiler's level, which the harness fixes (HOST_OPT)."""
    kept: list[str] = []
    dropped: list[str] = []
    i = 0
    while i < len(flags):
        flag = flags[i].strip()
        if re.fullmatch(r"-O[0-3sg]?|--optimize=?\d?", flag):
            dropped.append(flag)
        elif flag in ("-Xcompiler", "--compiler-options") and i + 1 < len(flags) and re.fullmatch(r"-O[0-3sg]?", flags[i + 1].strip()):
            dropped.append(f"{flag} {flags[i + 1].strip()}")
            i += 1
        elif flag:
            kept.append(flag)
        i += 1
    return kept, dropped


def _nvcc_command(layout: dict[str, Any], source: Path, output: Path, cuda_flags: list[str],
                  include_paths: list[str], light: Path | None) -> list[str]:  # fmt: skip
    arch = toolchain.cuda_arch()
    virtual = "compute_" + arch.split("_", 1)[1]
    nvcc = toolchain.nvcc_path()
    assert nvcc is not None
    # One code target: `-arch=sm_90a` also runs the front end for compute_90 PTX (a second full pass
    # over the torch headers) that a build for the GPU at hand never loads.
    return [nvcc, HOST_OPT, f"-std={layout['std']}", "-gencode", f"arch={virtual},code={arch}",
            "-Xcompiler", "-fPIC", *layout["nvcc_flags"], f"-D_GLIBCXX_USE_CXX11_ABI={layout['abi']}",
            "-DTORCH_API_INCLUDE_EXTENSION_H", "-DNVTX_DISABLE", "-w",
            *([f"-I{light}"] if light else []), *[f"-I{p}" for p in layout["includes"]],
            *cuda_flags, *[f"-I{p}" for p in include_paths], "-c", str(source), "-o", str(output)]  # fmt: skip


def _light_dir(cache: Path) -> Path:
    """A folder whose torch/extension.h stands in for torch's in the CUDA translation unit."""
    folder = cache / "torch-light" / hashlib.sha256(LIGHT_EXTENSION_H.encode()).hexdigest()[:12]
    header = folder / "torch" / "extension.h"
    if not header.is_file():
        header.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=header.parent)
        with os.fdopen(fd, "w") as f:
            f.write(LIGHT_EXTENSION_H)
        os.replace(tmp, header)
    return folder


def _timed_run(cmd: list[str], timeout_s: float) -> tuple[bool, str, float]:
    began = time.monotonic()
    ok, out = _run(cmd, timeout_s)
    return ok, out, time.monotonic() - began


def _run(cmd: list[str], timeout_s: float) -> tuple[bool, str]:
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s)
    except subprocess.TimeoutExpired:
        return False, f"{Path(cmd[0]).name} ran longer than {timeout_s:.0f} s"
    except OSError as exc:
        return False, f"cannot run {cmd[0]}: {exc}"
    return proc.returncode == 0, proc.stdout + proc.stderr


def _trim(text: str) -> str:
    """Error lines first (a torch header's warnings can run to thousands of lines), then the rest."""
    lines = text.splitlines()
    errors = [line for line in lines if "error" in line.lower()]
    return "\n".join(errors + [line for line in lines if line not in errors])[:_DIAG_LIMIT]


# ---- in the worker ---------------------------------------------------------------------------------
def install(request: Any) -> None:
    """Replace torch's load_inline (and refuse `load`, which reads files the parent cannot see) with
    the parent's cached builder. `request(spec)` returns the parent's reply: {"library", "module"}
    or {"error"}."""
    import importlib.machinery
    import importlib.util

    from torch.utils import cpp_extension

    def load_inline(*args: Any, **kwargs: Any) -> Any:
        reply = request(spec_from_call(args, kwargs))
        if reply.get("error"):
            raise BuildError(reply["error"])
        loader = importlib.machinery.ExtensionFileLoader(reply["module"], reply["library"])
        spec = importlib.util.spec_from_file_location(reply["module"], reply["library"], loader=loader)
        assert spec is not None
        module = importlib.util.module_from_spec(spec)
        loader.exec_module(module)
        return module

    def load(*args: Any, **kwargs: Any) -> Any:
        raise BuildError("torch.utils.cpp_extension.load (sources from files) is not available to candidates: "
                         "pass the sources as strings to load_inline")  # fmt: skip

    cpp_extension.load_inline = load_inline
    cpp_extension.load = load
    sys.modules["torch.utils.cpp_extension"].load_inline = load_inline


class BuildError(RuntimeError):
    """The candidate's extension did not build; the message holds the compiler's diagnostics."""
