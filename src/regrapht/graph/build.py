"""Graph construction: trajectories -> relabel -> verify each step -> merge (Algorithm 1).

For each trajectory, in order:
1. skip it if its content hash is in the graph's ledger as merged or cut (this is what makes a build
   resumable: save the graph after each trajectory and run the same command again);
2. resolve the starting code (inline, or the task's serial/naive code through `starting_code`);
3. relabel its step methods; if relabeling does not line up, drop the whole trajectory;
4. verify its steps in order; the first step that fails (any status but correct/unverified) cuts the
   trajectory there: that step is still merged, as failure evidence on its edge, the rest is not.
   Correct but slower steps are kept, with their measured speedup, as negative evidence;
5. merge the verified prefix with Algorithm 1 and record the outcome in the ledger.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from regrapht.graph.merge import LabeledStep, NodeFactory, merge_trajectory, record_dropped
from regrapht.graph.model import Example, ReGraph, TrajectoryRecord
from regrapht.graph.relabel import Relabeler, RelabelError, check_alignment
from regrapht.graph.trajectory import Trajectory
from regrapht.graph.verify import StepCheck, Verifier, unverified

StartingCode = Callable[[str, str], str]  # (task id, "serial" | "naive") -> code


@dataclass(frozen=True)
class BuildEvent:
    """Reported after each trajectory: `outcome` is merged, cut, dropped or skipped."""

    index: int
    trajectory: Trajectory
    hash: str
    outcome: str
    merged_steps: int
    reason: str = ""


@dataclass
class BuildReport:
    merged: int = 0
    cut: int = 0
    dropped: int = 0
    skipped: int = 0
    steps_merged: int = 0
    steps_failed: int = 0
    reasons: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, object]:
        return {
            "merged": self.merged,
            "cut": self.cut,
            "dropped": self.dropped,
            "skipped": self.skipped,
            "steps_merged": self.steps_merged,
            "steps_failed": self.steps_failed,
            "reasons": list(self.reasons),
        }


def _no_task_code(task: str, kind: str) -> str:
    raise LookupError(f"trajectory starts from the task's {kind} code, but no task loader was given")


def build_graph(
    graph: ReGraph,
    trajectories: Iterable[Trajectory],
    relabeler: Relabeler,
    verifier: Verifier | None = None,
    starting_code: StartingCode | None = None,
    node_factory: NodeFactory | None = None,
    on_trajectory: Callable[[BuildEvent], None] | None = None,
    on_step: Callable[[StepCheck], None] | None = None,
    retry_cut: bool = False,
) -> BuildReport:
    """Merge `trajectories` into `graph` (in place). `verifier` None means steps are recorded
    unverified. `on_trajectory` runs after each trajectory (save the graph there to checkpoint);
    `on_step` runs before each step is verified (progress). `retry_cut` takes trajectories that a
    step failure cut off the graph and builds them again (after their task or tolerance was fixed)."""
    verify = verifier or unverified
    start_of = starting_code or _no_task_code
    report = BuildReport()
    for index, traj in enumerate(trajectories):
        h = traj.hash
        prior = graph.ledger.get(h)
        if prior is not None and prior.outcome == "cut" and retry_cut:
            graph.forget_trajectory(h)
            prior = None
        if prior is not None and prior.outcome in ("merged", "cut"):
            report.skipped += 1
            if on_trajectory:
                on_trajectory(
                    BuildEvent(index, traj, h, "skipped", prior.merged_steps, "already on the graph")
                )
            continue
        event = _build_one(graph, traj, h, relabeler, verify, start_of, node_factory, report, on_step, index)
        if on_trajectory:
            on_trajectory(event)
    return report


def _drop(
    graph: ReGraph, traj: Trajectory, h: str, reason: str, report: BuildReport, index: int
) -> BuildEvent:
    record_dropped(graph, TrajectoryRecord(h, traj.task, traj.author, "dropped", len(traj.steps), 0, reason))
    report.dropped += 1
    report.reasons.append(f"{traj.task} ({h[:12]}): dropped: {reason}")
    return BuildEvent(index, traj, h, "dropped", 0, reason)


def _build_one(
    graph: ReGraph,
    traj: Trajectory,
    h: str,
    relabeler: Relabeler,
    verify: Verifier,
    start_of: StartingCode,
    node_factory: NodeFactory | None,
    report: BuildReport,
    on_step: Callable[[StepCheck], None] | None,
    index: int,
) -> BuildEvent:
    if traj.target != graph.target:
        return _drop(
            graph,
            traj,
            h,
            f"target {traj.target!r} does not match the graph's {graph.target!r}",
            report,
            index,
        )
    if traj.start_code is not None:
        before, start_kind = traj.start_code, "inline"
    else:
        assert isinstance(traj.start, str)
        try:
            before, start_kind = start_of(traj.task, traj.start), traj.start
        except (LookupError, OSError, ValueError) as exc:
            return _drop(graph, traj, h, f"no starting code: {exc}", report, index)
    names = [s.method for s in traj.steps]
    try:
        labels = check_alignment(names, relabeler.relabel(names, graph, [s.detail for s in traj.steps]))
    except RelabelError as exc:
        return _drop(graph, traj, h, f"relabeling did not line up: {exc}", report, index)

    labeled: list[LabeledStep] = []
    reason = ""
    for i, (step, label) in enumerate(zip(traj.steps, labels)):
        check = StepCheck(traj.task, traj.target, i, before, step.code, start_kind if i == 0 else "previous")
        if on_step:
            on_step(check)
        verdict = verify(check)
        example = Example(
            task=traj.task,
            think=step.think,
            detail=step.detail,
            before=before,
            after=step.code,
            trajectory=h,
            step=i,
            raw_method=step.method,
            author=traj.author,
            status=verdict.status,
            message=verdict.message,
            speedup=verdict.speedup if verdict.status == "correct" else None,
            gpu=verdict.gpu,
        )
        labeled.append(LabeledStep(label.method, example))
        if example.failed:
            reason = f"step {i} ({step.method}): {verdict.status}: {verdict.message}".strip()
            report.steps_failed += 1
            break
        before = step.code
    outcome = "cut" if reason else "merged"
    record = TrajectoryRecord(h, traj.task, traj.author, outcome, len(traj.steps), len(labeled), reason)
    graph.ledger.pop(h, None)  # a dropped record from an earlier run is replaced
    merge_trajectory(graph, labeled, record, node_factory)
    report.steps_merged += len(labeled)
    if reason:
        report.cut += 1
        report.reasons.append(f"{traj.task} ({h[:12]}): cut at {reason}")
    else:
        report.merged += 1
    return BuildEvent(index, traj, h, outcome, len(labeled), reason)
