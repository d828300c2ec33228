"""Which task kinds a search can work on, and why torch tasks are not among them.

Every strategy's prompts ask for a serial C++ function to be rewritten as CUDA, and every step the
Reasoning Graph holds was recorded on a serial-cpp task; nothing of either applies to a PyTorch
`Model`. A search on a torch task would spend its whole budget on candidates that cannot apply, so it
is refused with this reason instead (the CLI and `run_searches` alike)."""

from __future__ import annotations

from typing import Any

SEARCHABLE = ("serial-cpp",)


def refusal(task: Any = None) -> str | None:
    """Why no search can run on `task` (None: it can); with no task, the reason for torch tasks."""
    kind = "torch" if task is None else getattr(task, "kind", "serial-cpp")
    if kind in SEARCHABLE:
        return None
    what = f"{kind} task {task.id}" if task is not None else f"{kind} tasks"
    name = task.id if task is not None else "TASK"
    return (
        f"no search strategy can work on {what}: every strategy's prompts ask for a serial C++ function to be "
        "rewritten as CUDA, and the Reasoning Graph's recorded steps (the offline policy's only moves, and the "
        "worked examples of mcgs, walk, greedy and rag) all come from serial-cpp tasks, so a search would only "
        "spend its budget on candidates that cannot apply to a PyTorch Model. Judge ModelNew candidates instead: "
        f"`regrapht eval {name} CANDIDATE.py`, or over the suite `regrapht bench --kind torch "
        "--candidates DIR --out OUT`; the RL environment (`regrapht serve`) has torch prompts for a model to "
        "generate them."
    )
