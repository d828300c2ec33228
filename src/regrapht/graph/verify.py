"""Verifying trajectory steps before they enter the graph.

A verifier is any callable `(StepCheck) -> Verdict`. `EvalVerifier` is the real one: it runs the
evaluator (`regrapht.eval.evaluate`) on the step's code for the step's task and target, with the
previous step's code as the "previous" baseline so the speedup is that of `after` over `before`.
`unverified` records steps without checking them (for drafts; never for shipped graphs).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from regrapht.graph.model import STATUSES, Speedup


@dataclass(frozen=True)
class StepCheck:
    """One step to verify. `start` is how step 0's `before` was obtained ("serial", "naive" or
    "inline"); for later steps it is "previous"."""

    task: str
    target: str
    step: int
    before: str
    after: str
    start: str = "previous"


@dataclass(frozen=True)
class Verdict:
    status: str  # the evaluator's status, or "unverified"
    message: str = ""
    speedup: Speedup | None = None  # after over before, measured
    gpu: str | None = None
    record: dict[str, Any] = field(default_factory=dict)  # the evaluation record, for stores and logs
    machine: str | None = None  # what it was measured on: the GPU, or the CPU model and core count
    time_s: float | None = None  # the step's measured median time at the bench size
    floor_s: float | None = None  # the task's roofline floor there (cuda only)

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ValueError(f"unknown status {self.status!r}; one of {', '.join(STATUSES)}")


Verifier = Callable[[StepCheck], Verdict]


def unverified(check: StepCheck) -> Verdict:
    """A verifier that checks nothing: every step is recorded as "unverified"."""
    return Verdict("unverified", "not verified (built without a verifier)")


class EvalVerifier:
    """Adapts the evaluator (`regrapht.eval`) to the verifier interface. Use it as a context manager
    (or call `close`) so the evaluator's workers stop when the build ends.

    The baseline a step's speedup is measured against: for step 0 from the task's serial code, the
    evaluator's "serial" speedup; from its naive.cu, the "naive" speedup; otherwise the "previous"
    baseline, which is the `before` code passed to the evaluator. Identical steps (same task, target,
    baseline and code) are evaluated once per verifier.
    """

    def __init__(self, tasks_root: str | Path | None = None, config: Any = None) -> None:
        self.tasks_root = Path(tasks_root) if tasks_root is not None else None
        self.config = config
        self._tasks: dict[str, Any] = {}
        self._evaluator: Any = None
        self._memo: dict[tuple[str, ...], Verdict] = {}
        self._current: Any = None
        self._prepared: list[str] = []  # task ids whose bench data `prepare` asked for, in order

    def __enter__(self) -> EvalVerifier:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Shut the evaluator's workers down. Safe to call twice."""
        if self._evaluator is not None:
            self._evaluator.__exit__(None, None, None)
            self._evaluator = None

    def task(self, ref: str) -> Any:
        """The task with this id (or folder path), loaded once."""
        if ref not in self._tasks:
            from regrapht.tasks import find_task

            self._tasks[ref] = find_task(ref, self.tasks_root)
        return self._tasks[ref]

    def starting_code(self, task_ref: str, kind: str) -> str:
        """The code a trajectory starting from "serial" or "naive" starts from."""
        task = self.task(task_ref)
        if kind == "serial":
            return task.serial_source()
        if kind == "naive":
            code = task.naive_source()
            if code is None:
                raise FileNotFoundError(f"task {task.id!r} has no naive.cu to start from")
            return code
        raise ValueError(f"unknown start kind {kind!r}")

    def _open(self) -> Any:
        if self._evaluator is None:  # one evaluator for the whole build: its caches and workers are reused
            from regrapht.eval import Evaluator

            self._evaluator = Evaluator(self.config).__enter__()
        return self._evaluator

    def prepare(
        self,
        trajectories: list[Any],
        target: str,
        reference_threads: int = 2,
        known: set[tuple[str, str]] | frozenset[tuple[str, str]] = frozenset(),
    ) -> None:
        """Start every step's compile on the CPU pool and the tasks' bench data in the background,
        so the sequential verification finds them ready (a build is otherwise bound by nvcc).
        Steps whose (task id, code) is in `known` (already measured on the graph) are not compiled.
        Trajectories for another target or an unknown task are left to the build to report."""
        from regrapht.eval import screen

        evaluator = self._open()
        kind = "cuda" if target == "cuda" else "cpu"
        tasks: dict[str, Any] = {}
        for traj in trajectories:
            if traj.target != target:
                continue
            try:
                task = self.task(traj.task)
            except (LookupError, OSError, ValueError):
                continue
            submit = evaluator._submitter(task)
            if task.id not in tasks and kind == "cuda" and task.naive_source():
                submit(task.naive_source(), kind)  # the baseline every step of the task is timed with
            tasks.setdefault(task.id, task)
            for step in traj.steps:
                # Code the static screen blocks is never compiled, here as in the evaluator.
                if (traj.task, step.code) in known or (task.id, step.code) in known:
                    continue
                if not screen.blocking(screen.screen(step.code, target)):
                    submit(step.code, kind)
        self._prepared = list(tasks)
        if evaluator.config.timing:
            evaluator.prefetch(list(tasks.values()), threads=reference_threads)

    def _move_to(self, task: Any) -> None:
        """Trajectories come grouped by task: the bench data (gigabytes) of the task just finished,
        and of prepared tasks the build passed over (dropped trajectories), can go. Releasing them
        also lets the prefetcher move on to the tasks ahead."""
        if self._evaluator is not None:
            order = self._prepared
            done = [self._current.id] if self._current is not None else []
            if task.id in order:
                since = order.index(done[0]) if done and done[0] in order else 0
                done += order[since : order.index(task.id)]
            for task_id in dict.fromkeys(done):
                self._evaluator.release(self.task(task_id))
        self._current = task

    def __call__(self, check: StepCheck) -> Verdict:
        task = self.task(check.task)
        if self._current is None or self._current.id != task.id:
            self._move_to(task)
        if check.step == 0 and check.start in ("serial", "naive"):
            baseline, baselines = check.start, None
        else:
            baseline, baselines = "previous", {"previous": check.before}
        # the same step in two trajectories (typically the first parallel port) is evaluated once
        key = (check.task, check.target, baseline, check.before if baselines else "", check.after)
        if key in self._memo:
            return self._memo[key]
        ev = self._open().evaluate(task, check.after, check.target, baselines)
        speedup = None
        if ev.status == "correct":
            sp = (ev.speedups or {}).get(baseline)
            if sp and sp.get("value") is not None and sp["value"] > 0:
                speedup = Speedup(float(sp["value"]), _f(sp.get("ci_low")), _f(sp.get("ci_high")))
        fingerprint = ev.fingerprint or {}
        gpu = fingerprint.get("gpu")
        machine = machine_name(fingerprint, check.target)
        time_s = _f((ev.timings or {}).get("candidate", {}).get("median_s")) if ev.status == "correct" else None
        floor_s = _f((ev.roofline or {}).get("floor_s")) if ev.status == "correct" else None
        verdict = Verdict(ev.status, ev.message or "", speedup, gpu, ev.to_dict(), machine, time_s, floor_s)
        self._memo[key] = verdict
        return verdict


def machine_name(fingerprint: dict[str, Any], target: str) -> str | None:
    """The machine a step was measured on, from the evaluation's fingerprint: the GPU's name on
    cuda; on cpu the CPU model and the cores this process may use (what OpenMP spreads over)."""
    if target == "cuda":
        return fingerprint.get("gpu")
    cpu = fingerprint.get("cpu")
    if not cpu:
        return None
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return f"{cpu}, {cores} cores" if cores else str(cpu)


def _f(v: Any) -> float | None:
    return None if v is None else float(v)
