"""Checks benchmarks/torch_candidates_test/ (one candidate per test task) on the CPU, Triton kernels under Triton's interpreter, against each
test task's reference at every test shape its task.toml declares.

What it checks, the way the torch judge does (eval/torch_worker.py, eval/torch_checks.py): sizes set on
the reference module, Model and ModelNew built under the same seed with ModelNew loading Model's
parameters by name, inputs in the task's dtype, outputs against the float64 reference within the
task's tolerance (|out - ref| <= atol + rtol |ref|), the source screen, and the ATen operators the
forward dispatched against the allowed list. It cannot time anything, nor run load_inline CUDA.
Triton 3.9's interpreter computes tl.dot on bfloat16 operands wrongly (it reads their bits as
integers), so a bfloat16 task's candidate runs its same kernels on the bf16 inputs and weights
widened to float32: that checks indexing, masks and fusion, not bf16 rounding.

Usage, from the repository root:
    TRITON_INTERPRET=1 PYTHONPATH=src python benchmarks/check_torch_candidates.py [TASK ...]
"""

from __future__ import annotations

import copy
import os
import sys
import traceback
from pathlib import Path

import tomllib
import torch

from regrapht.eval import torch_checks
from regrapht.eval.torch_worker import load_module, make_model, match_parameters, set_sizes

HERE = Path(__file__).resolve().parent / "torch_candidates_test"
TASKS = HERE.parents[1] / "src" / "regrapht" / "data" / "tasks_torch" / "test"
DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}


def check(task_id: str) -> list[str]:
    folder = TASKS / task_id
    spec = tomllib.loads((folder / "task.toml").read_text())
    dtype = DTYPES[spec["dtype"]]
    rtol, atol = spec["tolerance"]["rtol"], spec["tolerance"]["atol"]
    path = HERE / f"{task_id}.py"
    problems = [f"screen line {h.line}: {h.message}" for h in torch_checks.screen_source(path.read_text())]
    ref = load_module(folder / "reference.py", f"ref_{task_id}")
    cand = load_module(path, f"cand_{task_id}")
    for sizes in spec["sizes"]["test"]:
        set_sizes(ref, sizes)
        init = list(ref.get_init_inputs())
        model = make_model(ref, ref.Model, init, 1234, dtype, "cpu")
        new = make_model(ref, cand.ModelNew, init, 99, dtype, "cpu")
        match_parameters(new, model)
        torch.manual_seed(7)
        inputs = [x.to(dtype) if x.is_floating_point() else x for x in ref.get_inputs()]
        run_dtype = dtype
        if dtype == torch.bfloat16:  # the interpreter's tl.dot reads bf16 as integers: run the same kernels in fp32
            run_dtype = torch.float32
            new = new.float()
        run_inputs = [x.to(run_dtype) if x.is_floating_point() else x for x in inputs]
        with torch.no_grad():
            expected = torch_checks.flat_outputs(torch, copy.deepcopy(model).double()(
                *[x.double() if x.is_floating_point() else x for x in inputs]))
            audit = torch_checks.Audit()
            with torch_checks.dispatch_audit(torch, audit, spec["dtype"], None):
                got = torch_checks.flat_outputs(torch, new(*run_inputs))
        if audit.forbidden or audit.lowered:
            problems.append(f"{sizes}: forbidden {audit.forbidden} lowered {audit.lowered}")
        for g, e in zip(got, expected):
            if g.shape != e.shape or g.dtype != (e.dtype if not e.is_floating_point() else run_dtype):
                problems.append(f"{sizes}: shape/dtype {tuple(g.shape)} {g.dtype} vs {tuple(e.shape)} {e.dtype}")
                continue
            err = (g.double() - e.double()).abs()
            bound = atol + rtol * e.double().abs()
            if not bool(torch.isfinite(g.double()).all()) or bool((err > bound).any()):
                problems.append(f"{sizes}: max error {float(err.max()):.3g} (worst excess {float((err - bound).max()):.3g})")
    return problems


def main(argv: list[str]) -> int:
    if os.environ.get("TRITON_INTERPRET") != "1":
        print("set TRITON_INTERPRET=1 (Triton kernels run under its interpreter on CPU tensors)")
        return 2
    ids = argv or sorted(p.stem for p in HERE.glob("*.py") )
    failed = 0
    for task_id in ids:
        try:
            problems = check(task_id)
        except Exception:  # a candidate that cannot run here is reported, the rest still checked
            problems = [traceback.format_exc(limit=3)]
        failed += bool(problems)
        print(f"{'FAIL' if problems else 'ok  '} {task_id}" + "".join(f"\n     {p}" for p in problems), flush=True)
    print(f"{len(ids) - failed}/{len(ids)} candidates pass")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
