"""Running strategies: many runs in lockstep, their model calls and evaluations batched.

Each round, every run that waits for a generation is answered by one `model.generate` call (an
in-process engine is only fast with many prompts at once), then every run that waits for an
evaluation is answered by one `evaluate_many` call (compiles in parallel, device runs one at a time).
A run's decisions depend only on what its own requests returned, so batching never changes a result.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from regrapht.llm.types import ChatModel
from regrapht.search.budget import BudgetExhausted
from regrapht.search.context import EvaluateOp, GenerateOp, Op, SearchContext, Steps, TaskFailure
from regrapht.search.evaluate import EvalBackend


@dataclass(eq=False)
class Run:
    ctx: SearchContext
    steps: Steps
    pending: Op | None = None
    started: bool = False
    done: bool = False


def _advance(run: Run, value: object, on_finish: Callable[[Run], None] | None) -> None:
    result = run.ctx.result
    try:
        if run.started:
            run.pending = run.steps.send(value)
        else:
            run.started = True
            run.pending = next(run.steps)
        return
    except StopIteration:
        result.stopped = result.stopped or "strategy finished"
    except BudgetExhausted as exc:
        result.stopped = exc.reason
    except TaskFailure as exc:
        result.stopped = "task error"
        result.error = str(exc)
    run.done = True
    run.pending = None
    if on_finish is not None:
        on_finish(run)


def drive(
    runs: Sequence[Run],
    model: ChatModel,
    evals: EvalBackend,
    on_finish: Callable[[Run], None] | None = None,
) -> None:
    """Run every run to its end. Model and backend errors propagate (the store keeps what was done,
    so running the same runs again resumes them)."""
    for run in runs:
        if not run.started:
            _advance(run, None, on_finish)
    while True:
        waiting = [r for r in runs if not r.done and isinstance(r.pending, GenerateOp)]
        if waiting:
            results = model.generate([r.pending.request for r in waiting])  # type: ignore[union-attr]
            for run, res in zip(waiting, results):
                _advance(run, res, on_finish)
        evaluating = [r for r in runs if not r.done and isinstance(r.pending, EvaluateOp)]
        if evaluating:
            outcomes = evals.evaluate_many([r.pending.request for r in evaluating])  # type: ignore[union-attr]
            for run, outcome in zip(evaluating, outcomes):
                _advance(run, outcome, on_finish)
        if not waiting and not evaluating:
            stuck = [r for r in runs if not r.done]
            if stuck:
                raise RuntimeError(f"{len(stuck)} run(s) wait for an operation the driver does not know")
            return
