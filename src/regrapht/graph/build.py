"""Graph construction: trajectories -> relabel -> verify each step -> merge (Algorithm 1).

For each trajectory, in order:
1. skip it if its content hash is in the graph's ledger as merged or cut (this is what makes a build
   resumable: save the graph after each trajectory and run the same command again);
2. resolve the starting code (inline, or the task's serial/naive code through `starting_code`);
3. relabel its step methods; if relabeling does not line up, drop the whole trajectory;
4. verify its steps in order; the first step that fails (any status but correct/unverified) cuts the
   trajectory there: that step is still merged, as failure evidence on its edge labelled "unplanned",
   the rest is not. Correct but slower steps are kept, with their measured speedup, as negative
   evidence. A last step that carries `expect_failure` is evaluated too: when the verdict is the one
   its kind promises (data/failure_kinds.toml: "fail", rejected; "slower", correct and slower with
   its whole confidence interval below 1) it is merged as a failure labelled with its kind and why;
   otherwise it is not merged at all and the trajectory's outcome is "unreproduced";
5. merge the verified prefix with Algorithm 1 and record the outcome in the ledger.

A step is never measured twice: one whose edge, code before and code after equal an example already
on the graph is not evaluated nor added again (the trajectory continues from it: a trajectory that
copies another's first steps verbatim costs only its new steps), and one whose task and code equal an
example on another edge takes that example's verdict.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from regrapht.graph.merge import LabeledStep, NodeFactory, merge_trajectory, record_dropped
from regrapht.graph.model import (
    FAILURE_STATUSES,
    INITIAL,
    UNPLANNED,
    Example,
    FailureLabel,
    ReGraph,
    TrajectoryRecord,
    trim_message,
)
from regrapht.graph.relabel import Relabeler, RelabelError, check_alignment
from regrapht.graph.trajectory import ExpectedFailure, Trajectory, failure_kinds
from regrapht.graph.verify import StepCheck, Verdict, Verifier, unverified

SETTLED = ("merged", "cut", "unreproduced")  # outcomes a resumed build does not build again
RETRIED = ("cut", "unreproduced")  # what `retry_cut` builds again

StartingCode = Callable[[str, str], str]  # (task id, "serial" | "naive") -> code


@dataclass(frozen=True)
class BuildEvent:
    """Reported after each trajectory: `outcome` is merged, cut, unreproduced, dropped or skipped."""

    index: int
    trajectory: Trajectory
    hash: str
    outcome: str
    merged_steps: int
    reason: str = ""
    reused_steps: int = 0
    evaluated_steps: int = 0


@dataclass
class BuildReport:
    merged: int = 0
    cut: int = 0
    dropped: int = 0
    skipped: int = 0
    unreproduced: int = 0
    stopped: bool = False  # `should_stop` ended the build before every trajectory was seen
    steps_merged: int = 0
    steps_failed: int = 0
    steps_evaluated: int = 0
    steps_reused: int = 0  # taken from an example already on the graph, not measured again
    failures_labelled: int = 0  # expected failures the evaluator reproduced
    reasons: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, object]:
        return {
            "merged": self.merged,
            "cut": self.cut,
            "unreproduced": self.unreproduced,
            "dropped": self.dropped,
            "skipped": self.skipped,
            "stopped": self.stopped,
            "steps_merged": self.steps_merged,
            "steps_failed": self.steps_failed,
            "steps_evaluated": self.steps_evaluated,
            "steps_reused": self.steps_reused,
            "failures_labelled": self.failures_labelled,
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
    should_stop: Callable[[], bool] | None = None,
) -> BuildReport:
    """Merge `trajectories` into `graph` (in place). `verifier` None means steps are recorded
    unverified. `on_trajectory` runs after each trajectory (save the graph there to checkpoint);
    `on_step` runs before each step is evaluated (progress). `retry_cut` takes trajectories that a
    step failure cut off the graph, or whose expected failure did not show, and builds them again
    (after their task or tolerance was fixed). `should_stop` is asked before each trajectory; when
    it says yes the build ends there (`report.stopped`), to be resumed by the next build."""
    verify = verifier or unverified
    start_of = starting_code or _no_task_code
    report = BuildReport()
    measured = _measured_index(graph)
    for index, traj in enumerate(trajectories):
        if should_stop is not None and should_stop():
            report.stopped = True
            break
        h = traj.hash
        prior = graph.ledger.get(h)
        if prior is not None and prior.outcome in RETRIED and retry_cut:
            graph.forget_trajectory(h)
            # Trajectories of the task that continued from its examples (reused steps) lost them with
            # it: they are verified again too, when this build holds them.
            for other in [r for r in graph.ledger.values() if r.task == prior.task and r.reused_steps > 0]:
                graph.forget_trajectory(other.hash)
            measured = _measured_index(graph)
            prior = None
        if prior is not None and prior.outcome in SETTLED:
            report.skipped += 1
            if on_trajectory:
                on_trajectory(
                    BuildEvent(index, traj, h, "skipped", prior.merged_steps, "already on the graph")
                )
            continue
        event = _build_one(
            graph, traj, h, relabeler, verify, start_of, node_factory, report, on_step, index, measured, verifier
        )
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
    measured: dict[tuple[str, str, str], Example],
    verifier: Verifier | None,
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
    unreproduced = ""
    evaluated = 0
    source = INITIAL
    for i, (step, label) in enumerate(zip(traj.steps, labels)):
        check = StepCheck(traj.task, traj.target, i, before, step.code, start_kind if i == 0 else "previous")
        known = graph.find_example(source, label.method, before, step.code) or measured.get(
            (traj.task, before, step.code)
        )
        if known is not None and known.status == "unverified" and verifier is not None:
            known = None  # a draft's step: verify it now
        if known is not None:  # measured before (this build or an earlier one): not again
            verdict = Verdict(
                known.status,
                known.message,
                known.speedup,
                known.gpu,
                machine=known.machine,
                time_s=known.time_s,
                floor_s=known.floor_s,
            )
            report.steps_reused += 1
        else:
            if on_step:
                on_step(check)
            verdict = verify(check)
            evaluated += 1
            report.steps_evaluated += 1
        failure: FailureLabel | None = None
        if step.expect_failure is not None:
            if not reproduced(step.expect_failure, verdict):
                unreproduced = (
                    f"step {i} ({step.method}): expected failure {step.expect_failure.kind!r} not reproduced: "
                    f"{_verdict_text(verdict)}"
                )
                break
            failure = FailureLabel(step.expect_failure.kind, step.expect_failure.why)
            report.failures_labelled += 1
        elif verdict.status in FAILURE_STATUSES:
            failure = FailureLabel(UNPLANNED, "the step failed verification; its author expected it to pass")
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
            message=trim_message(verdict.message) if failure is not None else verdict.message,
            speedup=verdict.speedup if verdict.status == "correct" else None,
            gpu=verdict.gpu,
            machine=verdict.machine,
            failure=failure,
            time_s=verdict.time_s,
            floor_s=verdict.floor_s,
        )
        labeled.append(LabeledStep(label.method, example))
        if example.failed and failure is not None and failure.kind == UNPLANNED:
            reason = f"step {i} ({step.method}): {verdict.status}: {trim_message(verdict.message, 300)}".strip()
            report.steps_failed += 1
            break
        before = step.code
        source = label.method
    outcome = "cut" if reason else "unreproduced" if unreproduced else "merged"
    record = TrajectoryRecord(h, traj.task, traj.author, outcome, len(traj.steps), 0, reason or unreproduced)
    graph.ledger.pop(h, None)  # a dropped record from an earlier run is replaced
    merge_trajectory(graph, labeled, record, node_factory)
    for st in labeled:
        if st.example.status != "unverified":
            measured.setdefault(st.example.content_key(), st.example)
    report.steps_merged += record.merged_steps
    if reason:
        report.cut += 1
        report.reasons.append(f"{traj.task} ({h[:12]}): cut at {reason}")
    elif unreproduced:
        report.unreproduced += 1
        report.reasons.append(f"{traj.task} ({h[:12]}): expected failure not reproduced at {unreproduced}")
    else:
        report.merged += 1
    return BuildEvent(
        index, traj, h, outcome, record.merged_steps, reason or unreproduced, record.reused_steps, evaluated
    )


def reproduced(expected: ExpectedFailure, verdict: Verdict) -> bool:
    """Whether a verdict is the failure its kind promises: "fail", the evaluator rejected the step;
    "slower", the step is correct and measured slower than the code before it, the whole confidence
    interval below 1 (a slowdown within the noise is not evidence)."""
    kind = failure_kinds().get(expected.kind, {})
    if kind.get("verdict") == "fail":
        return verdict.status in FAILURE_STATUSES
    if kind.get("verdict") == "slower":
        sp = verdict.speedup
        if verdict.status != "correct" or sp is None:
            return False
        return (sp.ci_high if sp.ci_high is not None else sp.value) < 1.0
    return False


def _verdict_text(verdict: Verdict) -> str:
    if verdict.status == "correct" and verdict.speedup is not None:
        sp = verdict.speedup
        ci = f" [{sp.ci_low:.3g}, {sp.ci_high:.3g}]" if sp.ci_low is not None and sp.ci_high is not None else ""
        return f"correct, {sp.value:.3g}x{ci}"
    return f"{verdict.status}: {trim_message(verdict.message, 200)}".rstrip(": ")


def _measured_index(graph: ReGraph) -> dict[tuple[str, str, str], Example]:
    """(task, before, after) -> the first example of that code change on the graph, any edge."""
    index: dict[tuple[str, str, str], Example] = {}
    for _, ex in graph.examples():
        if ex.status != "unverified":
            index.setdefault(ex.content_key(), ex)
    return index
