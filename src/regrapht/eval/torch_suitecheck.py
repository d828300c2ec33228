"""Validating torch tasks (`regrapht tasks check` on a torch task): the reference runs at every test
size and at the bench size of the target, is deterministic under a seed, its outputs vary (a constant
or all-zero output would let a trivial candidate pass), and the task's solution, where it ships one,
is judged correct by the same judge candidates face."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

from regrapht.eval.config import EvalConfig
from regrapht.eval.evaluator import Evaluator
from regrapht.eval.torch_judge import TorchReferenceError
from regrapht.tasks.torch_task import TorchTask


@dataclass
class TorchCheck:
    task_id: str
    target: str
    ok: bool = True
    problems: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    solution: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def check_torch_task(task: TorchTask, target: str, config: EvalConfig | None = None) -> TorchCheck:
    config = config or EvalConfig(seeds=2)
    check = TorchCheck(task.id, target)
    with Evaluator(config) as evaluator:
        judge = evaluator.torch_judge()
        cases = judge.cases(task)
        bench = task.bench_for(target)
        cases.append({"label": "bench", "sizes": bench, "init_seed": cases[0]["init_seed"], "input_seed": 1})
        try:
            ref = judge.reference(task, target, check_determinism=True, cases=cases)
        except TorchReferenceError as exc:
            check.problems.append(str(exc))
            check.ok = False
            return check
        if not ref.deterministic:
            check.problems.append("the reference gives different outputs on the same inputs and seed")
        for label, spreads in ref.spread.items():
            for i, spread in enumerate(spreads):
                output = ref.outputs[label][i]
                # a single number has no spread of its own: it is judged against other seeds, not here
                if math.prod(output["shape"]) <= 1:
                    continue
                if spread == 0.0 and output["dtype"].startswith(("float", "bfloat")):
                    sizes = next(c["sizes"] for c in cases if c["label"] == label)
                    check.warnings.append(f"output {i} is constant at {sizes} (a trivial candidate could pass there)")
        for label, note in ref.notes.items():
            check.warnings.append(f"{label}: {note}")
        for label, errors in ref.native_error.items():
            if label == "bench":
                continue
            tol = task.tolerance
            worst = max(errors, default=0.0)
            if worst > tol.atol + tol.rtol * 1e6 and tol.rtol + tol.atol > 0:
                check.warnings.append(f"{label}: the reference in {task.dtype} is {worst:.3g} from float64; "
                                      f"is the tolerance ({tol.describe()}) reachable?")  # fmt: skip
        solution = task.solution_path if target == "cuda" else task.cpu_solution_path
        if solution is not None:
            ev = evaluator.evaluate(task, solution.read_text(), target)
            check.solution = {"file": solution.name, "status": ev.status, "message": ev.message}
            if ev.status != "correct":
                check.problems.append(f"{solution.name} is judged {ev.status}: {ev.message}")
    check.ok = not check.problems
    return check
