"""Where a torch candidate's extension build spends its time: CPU seconds per compiler step.

The CUDA translation unit is compiled the way eval/torch_build.py compiles it, in several recipes
(the session-9 one and each of today's changes alone), each step of nvcc's pipeline (`nvcc -dryrun`)
run on its own under bash with `times` after it, so the figures are CPU seconds (user + sys), which a
loaded machine does not inflate as it does wall time. The C++ binding unit is compiled against the
precompiled header (g++ -H shows whether it was taken) and linked.

  PYTHONPATH=src python3 benchmarks/torch_build_cost.py benchmarks/torch_candidates/relu/cuda_vec4.py

Without cuBLAS/cuSPARSE/cuSOLVER headers (a CPU-only machine; torch's CUDAContext.h includes them)
pass --stub-cuda-libs: a few typedefs stand in for them, and the report says so.
"""

from __future__ import annotations

import argparse
import json
import re
import resource
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from regrapht.eval import toolchain, torch_build
from regrapht.eval.compile import default_cache_dir
from regrapht.eval.torch_prebuild import specs_in

STUBS = {
    "cusparse.h": "typedef struct cusparseContext* cusparseHandle_t;\ntypedef enum { CUSPARSE_STATUS_SUCCESS = 0 } cusparseStatus_t;\n"
    "const char* cusparseGetErrorString(cusparseStatus_t);\n",
    "cublas_v2.h": "#include <cuda_runtime_api.h>\n#include <library_types.h>\ntypedef struct cublasContext* cublasHandle_t;\n"
    "typedef enum { CUBLAS_STATUS_SUCCESS = 0 } cublasStatus_t;\nconst char* cublasGetStatusString(cublasStatus_t);\n",
    "cublasLt.h": '#include "cublas_v2.h"\ntypedef struct cublasLtContext* cublasLtHandle_t;\n',
    "cusolverDn.h": '#include "cublas_v2.h"\ntypedef struct cusolverDnContext* cusolverDnHandle_t;\n'
    "typedef enum { CUSOLVER_STATUS_SUCCESS = 0 } cusolverStatus_t;\n",
    "cusolver_common.h": "",
    "c10/cuda/impl/cuda_cmake_macros.h": "",
}

# name -> (gencode flags, host -O, light header)
RECIPES = {
    "s9: -arch, -O3, <torch/extension.h>": ("arch", "-O3", False),
    "one gencode, -O3, <torch/extension.h>": ("gencode", "-O3", False),
    "one gencode, -O1, <torch/extension.h>": ("gencode", "-O1", False),
    "one gencode, -O1, light header (now)": ("gencode", "-O1", True),
    "one gencode, -O0, light header": ("gencode", "-O0", True),
}


def nvcc_steps(source: Path, flags: list[str], work: Path) -> dict[str, float]:
    """CPU seconds of each step nvcc would run for `flags`, summed by step name."""
    dry = subprocess.run([*flags, "-dryrun", "-c", str(source), "-o", str(work / "out.o")], capture_output=True, text=True)
    script, names = [], []
    for line in (x[3:] for x in dry.stderr.splitlines() if x.startswith("#$ ")):
        if re.match(r"^[A-Za-z_]+=", line):
            key, value = line.split("=", 1)
            script.append(f"export {key}={shlex.quote(value.strip())}")
            continue
        word = line.split()[0].strip('"').split("/")[-1]
        if word == "rm":
            continue
        if word == "gcc":
            word = "gcc -E" if " -E " in line else "host g++"
        names.append(word)
        script += [f"echo '@@ {word}'", line, "times"]
    proc = subprocess.run(["bash", "-c", "\n".join(script)], capture_output=True, text=True, cwd=work)
    if proc.returncode != 0 or "error" in proc.stderr.lower():
        raise RuntimeError(proc.stderr[-2000:])
    totals: dict[str, float] = {}
    previous, current, seen = 0.0, None, 0
    for line in proc.stdout.splitlines():
        if line.startswith("@@ "):
            current, seen = line[3:], 0
        elif current and re.fullmatch(r"\d+m[\d.]+s \d+m[\d.]+s", line):
            seen += 1
            if seen == 2:  # `times`: the shell's own line, then its children's
                cpu = sum(int(m) * 60 + float(s) for m, s in re.findall(r"(\d+)m([\d.]+)s", line))
                totals[current] = round(totals.get(current, 0.0) + cpu - previous, 2)
                previous = cpu
    return totals


def cpu_of(cmd: list[str]) -> tuple[float, subprocess.CompletedProcess]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run(cmd, capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return round(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime, 2), proc


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("candidate", type=Path)
    parser.add_argument("--stub-cuda-libs", action="store_true")
    parser.add_argument("--recipes", nargs="*", default=list(RECIPES), help="Which recipes (names above).")
    args = parser.parse_args()
    (spec,) = specs_in(args.candidate.read_text())
    layout = torch_build._torch_layout(True)
    arch = toolchain.cuda_arch()
    report: dict = {"candidate": str(args.candidate), "torch": layout["torch"], "nvcc": toolchain.nvcc_version(),
                    "gxx": toolchain.gxx_version(), "arch": arch, "stubbed_cuda_libs": args.stub_cuda_libs, "cuda_unit": {}}  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="build-cost-") as tmp:
        work = Path(tmp)
        extra = []
        if args.stub_cuda_libs:
            for name, text in STUBS.items():
                (work / "stubs" / name).parent.mkdir(parents=True, exist_ok=True)
                (work / "stubs" / name).write_text("#pragma once\n" + text)
            extra.append(f"-I{work / 'stubs'}")
        light = torch_build._light_dir(work / "cache")
        source = work / "kernels.cu"
        source.write_text("#include <torch/types.h>\n#include <cuda.h>\n#include <cuda_runtime.h>\n" + "\n".join(spec["cuda_sources"]) + "\n")
        cuda_flags, _ = torch_build._candidate_cuda_flags(spec["extra_cuda_cflags"])
        for name in args.recipes:
            codes, opt, use_light = RECIPES[name]
            cmd = torch_build._nvcc_command(layout, source, work / "k.o", cuda_flags, [], light=light if use_light else None)
            cmd[1] = opt
            if codes == "arch":
                i = cmd.index("-gencode")
                cmd[i : i + 2] = [f"-arch={arch}"]
            cmd[1:1] = extra
            steps = nvcc_steps(source, cmd[: cmd.index("-c")], work)
            report["cuda_unit"][name] = {"steps": steps, "total": round(sum(steps.values()), 2)}
            print(f"{name}: {report['cuda_unit'][name]['total']} CPU s {steps}", file=sys.stderr, flush=True)
        flags = torch_build._cxx_flags(layout, True)
        pch = torch_build._pch(default_cache_dir(), layout, flags)  # content-addressed: the shared one
        main_cpp = work / "main.cpp"
        include = f'#include "{torch_build.PCH_HEADER}"\n' if pch else "#include <torch/extension.h>\n"
        main_cpp.write_text(include + "\n".join(spec["cpp_sources"]) + "\n" + torch_build._binding(spec["functions"], "m"))
        began = time.monotonic()
        cpu, proc = cpu_of([toolchain.gxx_path() or "g++", *flags, *extra, *([f"-I{pch}", "-H"] if pch else []),
                            "-c", str(main_cpp), "-o", str(work / "main.o")])  # fmt: skip
        taken = any(line.startswith("! ") and line.endswith(".gch") for line in proc.stderr.splitlines())
        report["cxx_unit"] = {"cpu_s": cpu, "wall_s": round(time.monotonic() - began, 2), "pch_taken": taken, "ok": proc.returncode == 0}
    print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
