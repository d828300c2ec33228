"""Checks of authored trajectory files that need no GPU, run before a build (`regrapht graph check`).

A build on the GPU cuts a trajectory at its first failing step, and a step that does not compile or
lands on an unknown method costs a machine's time to find out. This finds those here:

- every line parses as a trajectory (each bad line is reported, not only the first);
- every step's method name lands on a canonical method of the taxonomy by name or synonym, as the
  offline relabeler without embeddings places it (a misspelt name would become a node of its own);
- every step the next build will measure compiles with the evaluator's compiler, flags and the
  task's entry, and passes the static screen. Steps whose (task, code) the graph already measured
  are skipped, as the build skips them; the same (task, code) is compiled once. A step expected to
  fail with kind `compile_error` must not compile.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from regrapht.graph.model import ReGraph
from regrapht.graph.relabel import OfflineRelabeler
from regrapht.graph.taxonomy import Taxonomy, default_taxonomy
from regrapht.graph.trajectory import Trajectory, TrajectoryFormatError, parse_trajectory


@dataclass(frozen=True)
class Problem:
    """One thing the build would trip on; `step` is None for a whole line."""

    path: str
    line: int
    step: int | None
    kind: str  # "format" | "task" | "method" | "screen" | "compile" | "expected_compile_error"
    message: str

    def describe(self) -> str:
        where = f"{self.path}:{self.line}" + ("" if self.step is None else f" step {self.step}")
        return f"{where}: {self.kind}: {self.message}"


@dataclass
class PrecheckReport:
    trajectories: int = 0
    steps: int = 0
    compiled: int = 0
    known: int = 0  # steps the graph already measured: not compiled
    problems: list[Problem] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def _parse(path: Path, report: PrecheckReport) -> list[tuple[int, Trajectory]]:
    out: list[tuple[int, Trajectory]] = []
    with path.open("rb") as f:  # decoded line by line: a bad byte costs its line, not the file
        for lineno, raw in enumerate(f, start=1):
            where = f"{path}:{lineno}"
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                report.problems.append(Problem(str(path), lineno, None, "format", f"not UTF-8 text: {exc.reason}"))
                continue
            if not line.strip():
                continue
            try:
                out.append((lineno, parse_trajectory(json.loads(line), where)))
            except json.JSONDecodeError as exc:
                report.problems.append(Problem(str(path), lineno, None, "format", f"not valid JSON: {exc.msg}"))
            except TrajectoryFormatError as exc:
                report.problems.append(Problem(str(path), lineno, None, "format", str(exc).removeprefix(where + ": ")))
    return out


def precheck(
    paths: Iterable[str | Path],
    target: str,
    known: set[tuple[str, str]] | frozenset[tuple[str, str]] = frozenset(),
    taxonomy: Taxonomy | None = None,
    compiler: Any = None,
    tasks_root: Path | None = None,
    on_step: Callable[[str, int], None] | None = None,
) -> PrecheckReport:
    """Check trajectory files for `target`. `known`: (task id, code) pairs already measured on the
    graph, not compiled again. `compiler`: an eval Compiler (a default one when None)."""
    from regrapht.eval import screen
    from regrapht.eval.compile import Compiler
    from regrapht.eval.entry import for_task
    from regrapht.eval.jobs import params
    from regrapht.tasks import find_task

    tax = taxonomy if taxonomy is not None else default_taxonomy()
    relabeler = OfflineRelabeler(tax, embedder=None)
    empty = ReGraph(target)
    kind = "cuda" if target == "cuda" else "cpu"
    compiler = compiler if compiler is not None else Compiler()
    report = PrecheckReport()
    seen: set[tuple[str, str]] = set()
    for raw in paths:
        path = Path(raw)
        for lineno, traj in _parse(path, report):
            report.trajectories += 1
            report.steps += len(traj.steps)
            for i, label in enumerate(relabeler.relabel([s.method for s in traj.steps], empty)):
                if label.is_new:
                    report.problems.append(
                        Problem(str(path), lineno, i, "method", f"{label.raw!r} is no canonical {target} method")
                    )
            try:
                task = find_task(traj.task, tasks_root)
            except (LookupError, OSError, ValueError) as exc:
                report.problems.append(Problem(str(path), lineno, None, "task", str(exc)))
                continue
            names = [a.name for a in task.args]
            for i, s in enumerate(traj.steps):
                key = (task.id, s.code)
                if key in known:
                    report.known += 1
                    continue
                if key in seen:
                    continue
                seen.add(key)
                if on_step is not None:
                    on_step(traj.task, i)
                blocked = screen.blocking(screen.screen(s.code, target))
                if blocked:
                    report.problems.append(
                        Problem(str(path), lineno, i, "screen", "; ".join(f.describe() for f in blocked[:3]))
                    )
                    continue
                result = compiler.compile(
                    s.code, kind, task.function, params(task), names, entry=for_task(task, kind)
                )
                report.compiled += 1
                expects_error = s.expect_failure is not None and s.expect_failure.kind == "compile_error"
                if expects_error and result.ok:
                    report.problems.append(
                        Problem(str(path), lineno, i, "expected_compile_error", "the step compiles")
                    )
                elif not expects_error and not result.ok:
                    report.problems.append(
                        Problem(str(path), lineno, i, "compile", (result.diagnostics or result.log).strip()[:800])
                    )
    return report


def measured_steps(graph: ReGraph) -> set[tuple[str, str]]:
    """(task, code) of the steps a graph already measured (the build does not measure them again)."""
    return {(x.task, x.after) for _, x in graph.examples() if x.status != "unverified"}
