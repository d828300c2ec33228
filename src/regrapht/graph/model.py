"""The ReGraph data model: G = (V, E) with an initial node.

Nodes are optimization methods plus the initial node (the unoptimized code). An edge u -> v is a
transition observed in a trajectory: some step applied method v to code that had just received
method u. Each edge holds the worked examples of that transition; every statistic of an edge (times
taken, verified share, failures, speedup distribution, GPUs) is computed from its examples, so the
examples are the single source of truth and a graph file cannot contradict itself.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import networkx as nx

INITIAL = "initial"
INITIAL_DEFINITION = "The unoptimized starting code of a task (serial C++ or a naive port)."
GRAPH_TARGETS = ("cuda", "cpu")
# The evaluator's status ladder plus "unverified" for steps merged without a verifier.
STATUSES = (
    "correct",
    "wrong_answer",
    "integrity_violation",
    "timeout",
    "runtime_error",
    "compile_error",
    "unverified",
)
FAILURE_STATUSES = frozenset(STATUSES) - {"correct", "unverified"}
NODE_ORIGINS = ("initial", "taxonomy", "new")
# "unreproduced": the trajectory's last step was an expected failure that passed (a race that did not
# show); its other steps are on the graph, that step is not.
OUTCOMES = ("merged", "cut", "dropped", "unreproduced")
# The failure kind of a step that failed although its author did not expect it to (the authored kinds
# are in data/failure_kinds.toml).
UNPLANNED = "unplanned"
MESSAGE_CHARS = 600  # a failure's evaluator message is kept this long (compiler logs can run to pages)
DIGITS = 4  # statistics are rounded so graph files diff cleanly


@dataclass(frozen=True)
class Speedup:
    """A measured speedup (ratio of times; > 1 is faster) with its confidence interval."""

    value: float
    ci_low: float | None = None
    ci_high: float | None = None

    def to_dict(self) -> dict[str, float | None]:
        return {"value": self.value, "ci_low": self.ci_low, "ci_high": self.ci_high}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Speedup:
        return cls(float(d["value"]), _opt_float(d.get("ci_low")), _opt_float(d.get("ci_high")))


def _opt_float(v: Any) -> float | None:
    return None if v is None else float(v)


@dataclass(frozen=True)
class FailureLabel:
    """What kind of failed attempt an example is (data/failure_kinds.toml, or "unplanned") and why."""

    kind: str
    why: str

    def to_dict(self) -> dict[str, str]:
        return {"kind": self.kind, "why": self.why}


def trim_message(message: str, limit: int = MESSAGE_CHARS) -> str:
    """An evaluator message cut to `limit` characters (whole compiler logs do not belong on an edge)."""
    text = message.strip()
    return text if len(text) <= limit else text[: limit - 3].rstrip() + "..."


@dataclass
class Example:
    """One worked example on an edge: a step of a trajectory with its verdict.

    `speedup` is the measured speedup of `after` over `before` (over the serial reference for a first
    step from serial code); `gpu` names the GPU it was measured on (None on the cpu target or when
    unmeasured); `machine` names the machine it was measured on (the GPU on cuda, the CPU model and
    core count on cpu). `failure` labels a failed attempt: an expected one (its author's kind and why,
    reproduced by the evaluator) or an unplanned one. `trajectory` and `step` identify where the
    example came from, which makes merging idempotent.
    """

    task: str
    think: str
    detail: str
    before: str
    after: str
    trajectory: str
    step: int
    raw_method: str
    author: str = ""
    status: str = "unverified"
    message: str = ""
    speedup: Speedup | None = None
    gpu: str | None = None
    machine: str | None = None
    failure: FailureLabel | None = None
    time_s: float | None = None  # measured median time of `after` at the task's bench size
    floor_s: float | None = None  # the task's roofline floor on that machine (cuda), for "% of floor"

    @property
    def verified(self) -> bool:
        """Correct and not a labelled failure (a "slower" failure is correct but is evidence against)."""
        return self.status == "correct" and self.failure is None

    @property
    def failed(self) -> bool:
        """The evaluator rejected it."""
        return self.status in FAILURE_STATUSES

    @property
    def is_failure(self) -> bool:
        """Failure evidence: rejected by the evaluator, or labelled a failed attempt."""
        return self.failure is not None or self.failed

    @property
    def failure_kind(self) -> str | None:
        if self.failure is not None:
            return self.failure.kind
        return UNPLANNED if self.failed else None

    @property
    def key(self) -> tuple[str, int]:
        return (self.trajectory, self.step)

    def content_key(self) -> tuple[str, str, str]:
        """(task, before, after): the same code change on the same task, on whatever edge."""
        return (self.task, self.before, self.after)

    def to_dict(self) -> dict[str, Any]:
        return {
            "task": self.task,
            "trajectory": self.trajectory,
            "step": self.step,
            "author": self.author,
            "raw_method": self.raw_method,
            "status": self.status,
            "message": self.message,
            "speedup": None if self.speedup is None else self.speedup.to_dict(),
            "gpu": self.gpu,
            "machine": self.machine,
            "failure": None if self.failure is None else self.failure.to_dict(),
            "time_s": self.time_s,
            "floor_s": self.floor_s,
            "think": self.think,
            "detail": self.detail,
            "before": self.before,
            "after": self.after,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Example:
        sp = d.get("speedup")
        fl = d.get("failure")
        status = d.get("status", "unverified")
        if fl is not None:
            failure: FailureLabel | None = FailureLabel(fl["kind"], fl.get("why", ""))
        elif status in FAILURE_STATUSES:  # a graph file of format 1: failures carried no label
            failure = FailureLabel(UNPLANNED, "the step failed verification; its author expected it to pass")
        else:
            failure = None
        return cls(
            task=d["task"],
            think=d["think"],
            detail=d["detail"],
            before=d["before"],
            after=d["after"],
            trajectory=d["trajectory"],
            step=int(d["step"]),
            raw_method=d["raw_method"],
            author=d.get("author", ""),
            status=status,
            message=d.get("message", ""),
            speedup=None if sp is None else Speedup.from_dict(sp),
            gpu=d.get("gpu"),
            # format 1 recorded only the GPU; on cuda that is the machine
            machine=d["machine"] if "machine" in d else d.get("gpu"),
            failure=failure,
            time_s=_opt_float(d.get("time_s")),
            floor_s=_opt_float(d.get("floor_s")),
        )


def _quantile(sorted_values: list[float], q: float) -> float:
    """Linear-interpolated quantile of a sorted, non-empty list."""
    if len(sorted_values) == 1:
        return sorted_values[0]
    pos = q * (len(sorted_values) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)


def _r(x: float) -> float:
    return round(x, DIGITS)


def speedup_summary(values: list[float]) -> dict[str, Any] | None:
    """n, arithmetic mean, geometric mean and five-number summary of speedups (None if empty)."""
    vals = sorted(v for v in values if v > 0)
    if not vals:
        return None
    return {
        "n": len(vals),
        "mean": _r(sum(vals) / len(vals)),
        "geomean": _r(math.exp(sum(math.log(v) for v in vals) / len(vals))),
        "min": _r(vals[0]),
        "p25": _r(_quantile(vals, 0.25)),
        "median": _r(_quantile(vals, 0.5)),
        "p75": _r(_quantile(vals, 0.75)),
        "max": _r(vals[-1]),
        "faster": sum(1 for v in vals if v > 1.0),
    }


@dataclass(frozen=True)
class EdgeStats:
    """Statistics of one edge, computed from its examples."""

    taken: int
    verified: int
    unverified: int
    failures: int
    failure_kinds: dict[str, int]
    tasks: int
    speedup: dict[str, Any] | None  # over verified examples with a measured speedup
    gpus: dict[str, dict[str, Any]]  # gpu name ("cpu" when none) -> speedup summary there
    # Tasks with a verified example: how many teachers took the step and made it work (derived, not
    # written to graph files; `tasks` also counts tasks whose only attempt failed).
    verified_tasks: int = 0

    @property
    def verified_share(self) -> float:
        return self.verified / self.taken if self.taken else 0.0

    @property
    def geomean(self) -> float | None:
        return None if self.speedup is None else self.speedup["geomean"]

    def to_dict(self) -> dict[str, Any]:
        return {
            "taken": self.taken,
            "verified": self.verified,
            "unverified": self.unverified,
            "failures": self.failures,
            "failure_kinds": dict(sorted(self.failure_kinds.items())),
            "tasks": self.tasks,
            "speedup": self.speedup,
            "gpus": {k: self.gpus[k] for k in sorted(self.gpus)},
        }

    @classmethod
    def of(cls, examples: list[Example]) -> EdgeStats:
        verified = [e for e in examples if e.verified]
        kinds = Counter(e.failure_kind for e in examples if e.failure_kind is not None)
        measured = [e for e in verified if e.speedup is not None]
        per_gpu: dict[str, list[float]] = {}
        for e in measured:
            assert e.speedup is not None
            per_gpu.setdefault(e.gpu or "cpu", []).append(e.speedup.value)
        gpus = {g: s for g, v in per_gpu.items() if (s := speedup_summary(v)) is not None}
        return cls(
            taken=len(examples),
            verified=len(verified),
            unverified=sum(1 for e in examples if e.status == "unverified"),
            failures=sum(kinds.values()),
            failure_kinds=dict(kinds),
            tasks=len({e.task for e in examples}),
            speedup=speedup_summary([e.speedup.value for e in measured if e.speedup is not None]),
            gpus=gpus,
            verified_tasks=len({e.task for e in verified}),
        )


@dataclass
class Node:
    """A method node (or the initial node)."""

    method: str
    definition: str
    category: str | None = None
    origin: str = "taxonomy"  # "initial" | "taxonomy" | "new"


@dataclass
class Edge:
    """A transition source -> target with its worked examples, oldest first."""

    source: str
    target: str
    examples: list[Example] = field(default_factory=list)

    @property
    def stats(self) -> EdgeStats:
        return EdgeStats.of(self.examples)

    @property
    def key(self) -> tuple[str, str]:
        return (self.source, self.target)


@dataclass
class TrajectoryRecord:
    """The ledger entry of one trajectory seen by construction (what makes builds resumable).

    outcome: "merged" (every step verified and merged), "cut" (a step failed verification: the
    steps before it and the failing step are on the graph, the rest is not), "unreproduced" (the last
    step was an expected failure that passed: it is not on the graph), "dropped" (relabeling did not
    line up, or the trajectory could not be read against its task: nothing merged).
    `merged_steps` counts the examples the trajectory added; `reused_steps` the steps that were
    already on the graph as an identical example (same edge, code before and after), which it
    continued from without adding or measuring them again.
    """

    hash: str
    task: str
    author: str
    outcome: str
    steps: int
    merged_steps: int
    reason: str = ""
    reused_steps: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "hash": self.hash,
            "task": self.task,
            "author": self.author,
            "outcome": self.outcome,
            "steps": self.steps,
            "merged_steps": self.merged_steps,
            "reused_steps": self.reused_steps,
            "reason": self.reason,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> TrajectoryRecord:
        return cls(
            d["hash"],
            d["task"],
            d.get("author", ""),
            d["outcome"],
            d["steps"],
            d["merged_steps"],
            d.get("reason", ""),
            d.get("reused_steps", 0),
        )


class GraphError(ValueError):
    """An operation would break the graph's invariants."""


class ReGraph:
    """The Reasoning Graph for one target ("cuda" or "cpu")."""

    def __init__(self, target: str = "cuda", initial_definition: str = INITIAL_DEFINITION) -> None:
        if target not in GRAPH_TARGETS:
            raise GraphError(f"target must be one of {list(GRAPH_TARGETS)}, got {target!r}")
        self.target = target
        self.initial = INITIAL
        self.nodes: dict[str, Node] = {INITIAL: Node(INITIAL, initial_definition, None, "initial")}
        self.edges: dict[tuple[str, str], Edge] = {}
        self.ledger: dict[str, TrajectoryRecord] = {}

    # ------------------------------------------------------------------ structure
    def has_node(self, method: str) -> bool:
        return method in self.nodes

    def has_edge(self, source: str, target: str) -> bool:
        return (source, target) in self.edges

    def add_node(self, node: Node) -> Node:
        if node.method in self.nodes:
            raise GraphError(f"node {node.method!r} already exists")
        if node.origin == "initial" or node.method == INITIAL:
            raise GraphError("a graph has exactly one initial node, created with the graph")
        self.nodes[node.method] = node
        return node

    def add_edge(self, source: str, target: str) -> Edge:
        for end in (source, target):
            if end not in self.nodes:
                raise GraphError(f"edge {source} -> {target}: node {end!r} does not exist")
        if target == INITIAL:
            raise GraphError(f"edge {source} -> {target}: no edge may lead back to the initial node")
        if (source, target) in self.edges:
            raise GraphError(f"edge {source} -> {target} already exists")
        edge = Edge(source, target)
        self.edges[(source, target)] = edge
        return edge

    def edge(self, source: str, target: str) -> Edge:
        try:
            return self.edges[(source, target)]
        except KeyError:
            raise KeyError(f"no edge {source} -> {target}") from None

    def out_edges(self, source: str) -> list[Edge]:
        return [e for (s, _), e in sorted(self.edges.items()) if s == source]

    def in_edges(self, target: str) -> list[Edge]:
        return [e for (_, t), e in sorted(self.edges.items()) if t == target]

    def visits(self, method: str) -> int:
        """Steps that landed on `method` (for the initial node: trajectories that started there)."""
        if method == INITIAL:
            return sum(1 for r in self.ledger.values() if r.outcome != "dropped")
        return sum(len(e.examples) for e in self.in_edges(method))

    def forget_trajectory(self, trajectory_hash: str) -> int:
        """Take a trajectory's ledger entry and every example it contributed off the graph, so that a
        later build verifies it again (after its task was fixed, say). Edges left without examples go
        too; nodes stay. Returns the number of examples removed."""
        self.ledger.pop(trajectory_hash, None)
        removed = 0
        for key in list(self.edges):
            edge = self.edges[key]
            kept = [ex for ex in edge.examples if ex.trajectory != trajectory_hash]
            removed += len(edge.examples) - len(kept)
            edge.examples[:] = kept
            if not kept:
                del self.edges[key]
        return removed

    def find_example(self, source: str, target: str, before: str, after: str) -> Example | None:
        """The example of edge source -> target with exactly this code before and after, if any."""
        edge = self.edges.get((source, target))
        if edge is None:
            return None
        return next((x for x in edge.examples if x.before == before and x.after == after), None)

    def dedupe(self) -> int:
        """Keep one example per (edge, code before, code after): the first merged. A removed
        duplicate counts, in its trajectory's ledger entry, as a reused step rather than a merged one
        (graph files of format 1 could hold the same first port twice). Returns how many went."""
        removed = 0
        for key in sorted(self.edges):
            edge = self.edges[key]
            seen: set[tuple[str, str]] = set()
            kept = []
            for ex in edge.examples:
                code = (ex.before, ex.after)
                if code in seen:
                    removed += 1
                    rec = self.ledger.get(ex.trajectory)
                    if rec is not None:
                        rec.merged_steps -= 1
                        rec.reused_steps += 1
                    continue
                seen.add(code)
                kept.append(ex)
            edge.examples[:] = kept
        return removed

    def without_task(self, task: str) -> ReGraph:
        """What the graph knows of every task but `task`: the same nodes and edges, each edge holding
        only the other tasks' examples (an edge only `task` took stays, with no evidence). Searches
        read their priors and worked examples from this view, so a task's own recorded steps never
        steer or prompt its own search (leave-task-out). Examples are shared, not copied."""
        view = ReGraph(self.target, self.nodes[INITIAL].definition)
        view.nodes = dict(self.nodes)
        view.edges = {
            key: Edge(e.source, e.target, [ex for ex in e.examples if ex.task != task])
            for key, e in self.edges.items()
        }
        view.ledger = {h: r for h, r in self.ledger.items() if r.task != task}
        return view

    def examples(self) -> Iterator[tuple[Edge, Example]]:
        for key in sorted(self.edges):
            edge = self.edges[key]
            for ex in edge.examples:
                yield edge, ex

    def method_nodes(self) -> list[str]:
        """Method node names (the initial node excluded), sorted."""
        return sorted(n for n in self.nodes if n != INITIAL)

    # ------------------------------------------------------------------ views
    def to_networkx(self) -> nx.DiGraph:
        """A networkx view (a copy) for path and neighbourhood queries: node attribute `visits`,
        edge attributes `taken`, `verified`, `geomean` and `edge` (the Edge object)."""
        import networkx as nx

        g = nx.DiGraph(target=self.target, initial=self.initial)
        for name, node in self.nodes.items():
            g.add_node(name, origin=node.origin, visits=self.visits(name))
        for (s, t), edge in self.edges.items():
            st = edge.stats
            g.add_edge(s, t, taken=st.taken, verified=st.verified, geomean=st.geomean, edge=edge)
        return g

    def __repr__(self) -> str:
        n_ex = sum(len(e.examples) for e in self.edges.values())
        return f"ReGraph(target={self.target!r}, nodes={len(self.nodes)}, edges={len(self.edges)}, examples={n_ex})"
