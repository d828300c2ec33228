"""Runs torch task references on the CPU for tests/tasks/test_torch_suite.py, in a process of its own.

`python torch_reference_child.py RESULT.json TASK_DIR...`: for every task and every test size, builds the
model and inputs under a seed, runs forward, and records what is wrong: a non-finite output, a seed that
does not reproduce the inputs or outputs, two seeds drawing the same inputs, or the reference in its
declared dtype farther from the same reference run in float64 than the task's tolerance allows (the
harness compares candidates against the float64 run, so a tolerance tighter than the reference's own
rounding would fail an exact candidate).
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

import torch

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


def _load(folder: Path) -> Any:
    spec = importlib.util.spec_from_file_location(f"ref_{folder.name}", folder / "reference.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _outputs(value: Any) -> list[torch.Tensor]:
    return [value] if isinstance(value, torch.Tensor) else list(value)


def _run(module: Any, sizes: dict[str, int], seed: int, dtype: torch.dtype | None = None):
    for name, value in sizes.items():
        setattr(module, name, value)
    torch.manual_seed(seed)
    model = module.Model(*module.get_init_inputs())
    inputs = list(module.get_inputs())
    if dtype is not None:
        model = model.to(dtype)
        inputs = [t.to(dtype) if isinstance(t, torch.Tensor) and t.is_floating_point() else t for t in inputs]
    with torch.no_grad():
        return inputs, _outputs(model(*inputs))


def check_task(folder: Path) -> list[str]:
    spec = tomllib.loads((folder / "task.toml").read_text())
    module = _load(folder)
    problems: list[str] = []
    tol = spec["tolerance"]
    per_output = {o["index"]: o for o in tol.get("outputs", [])}
    for i, sizes in enumerate(spec["sizes"]["test"]):
        where = f"{folder.name} test size {i} {sizes}"
        try:
            inputs, outputs = _run(module, sizes, seed=1)
            inputs_again, outputs_again = _run(module, sizes, seed=1)
            inputs_other, _ = _run(module, sizes, seed=2)
            _, exact = _run(module, sizes, seed=1, dtype=torch.float64)
        except Exception as exc:  # noqa: BLE001 - reported as the test's failure message
            problems.append(f"{where}: {type(exc).__name__}: {exc}")
            continue
        floats = [t for t in inputs if isinstance(t, torch.Tensor) and t.is_floating_point()]
        if any(t.dtype != getattr(torch, spec["dtype"]) for t in floats):
            problems.append(f"{where}: inputs are {[t.dtype for t in floats]}, the task says {spec['dtype']}")
        if not all(torch.equal(a, b) for a, b in zip(inputs, inputs_again)):
            problems.append(f"{where}: the seed does not reproduce the inputs")
        if not all(torch.equal(a, b) for a, b in zip(outputs, outputs_again)):
            problems.append(f"{where}: the seed does not reproduce the outputs")
        if all(torch.equal(a, b) for a, b in zip(inputs, inputs_other)):
            problems.append(f"{where}: two seeds draw the same inputs")
        for k, (out, ref) in enumerate(zip(outputs, exact)):
            if out.is_floating_point() and not bool(torch.isfinite(out).all()):
                problems.append(f"{where}: output {k} has NaN or Inf")
                continue
            if not out.is_floating_point():
                if not torch.equal(out, ref):
                    problems.append(f"{where}: integer output {k} differs from the float64 run")
                continue
            t = per_output.get(k, tol)
            err = (out.double() - ref).abs()
            bound = t["atol"] + t["rtol"] * ref.abs()
            if bool((err > bound).any()):
                worst = float((err - bound).max())
                problems.append(
                    f"{where}: output {k} is off the float64 run by up to {float(err.max()):.3g}, "
                    f"beyond rtol={t['rtol']} atol={t['atol']} (by {worst:.3g})"
                )
    return problems


def main(argv: list[str]) -> int:
    torch.set_num_threads(1)
    result = {folder: check_task(Path(folder)) for folder in argv[1:]}
    Path(argv[0]).write_text(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
