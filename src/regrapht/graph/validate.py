"""Validation of graph files, with precise messages ("edges[3].examples[0].status: ...").

`validate_graph_dict` checks the JSON document itself (types, required keys, references between
nodes, edges and the trajectory ledger, and that the stored statistics equal those computed from the
examples). `validate_graph` adds checks against a taxonomy. Both return issues rather than raising,
so a user sees every problem at once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from regrapht.graph.model import (
    FAILURE_STATUSES,
    GRAPH_TARGETS,
    INITIAL,
    NODE_ORIGINS,
    OUTCOMES,
    STATUSES,
    UNPLANNED,
    EdgeStats,
    Example,
)

if TYPE_CHECKING:
    from regrapht.graph.model import ReGraph
    from regrapht.graph.taxonomy import Taxonomy

SCHEMA = "regrapht.graph"
SCHEMA_VERSION = 2
# Format 1 had no machine, failure label or reused-step count on its records, and could hold the
# same step twice on an edge; it loads (deduplicated, failures labelled "unplanned") and saves as 2.
READABLE_VERSIONS = (1, 2)


@dataclass(frozen=True)
class Issue:
    level: str  # "error" | "warning"
    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.level}: {self.path}: {self.message}"


class _Checker:
    def __init__(self) -> None:
        self.issues: list[Issue] = []

    def error(self, path: str, message: str) -> None:
        self.issues.append(Issue("error", path, message))

    def warning(self, path: str, message: str) -> None:
        self.issues.append(Issue("warning", path, message))

    def typed(
        self,
        obj: dict[str, Any],
        key: str,
        types: type | tuple[type, ...],
        path: str,
        *,
        optional: bool = False,
    ) -> bool:
        if key not in obj:
            if not optional:
                self.error(path, f"missing required key {key!r}")
            return False
        value = obj[key]
        ok = isinstance(value, types) and not (isinstance(value, bool) and bool not in _as_tuple(types))
        if not ok:
            names = " or ".join(t.__name__ if t is not type(None) else "null" for t in _as_tuple(types))
            self.error(f"{path}.{key}", f"must be {names}, got {type(value).__name__} {_short(value)}")
        return ok


def _as_tuple(t: type | tuple[type, ...]) -> tuple[type, ...]:
    return t if isinstance(t, tuple) else (t,)


def _short(v: Any) -> str:
    s = repr(v)
    return s if len(s) <= 40 else s[:37] + "..."


_NUM = (int, float)
_NONE = type(None)


def _check_speedup(c: _Checker, sp: Any, path: str) -> None:
    if sp is None:
        return
    if not isinstance(sp, dict):
        c.error(path, f"must be an object {{value, ci_low, ci_high}} or null, got {_short(sp)}")
        return
    if c.typed(sp, "value", _NUM, path) and not sp["value"] > 0:
        c.error(f"{path}.value", f"a speedup must be > 0, got {sp['value']}")
    c.typed(sp, "ci_low", (*_NUM, _NONE), path, optional=True)
    c.typed(sp, "ci_high", (*_NUM, _NONE), path, optional=True)


def _check_failure(c: _Checker, ex: dict[str, Any], path: str, version: int) -> None:
    from regrapht.graph.trajectory import failure_kinds

    status = ex.get("status", "unverified")
    label = ex.get("failure")
    if label is None:
        if version >= 2 and status in FAILURE_STATUSES:
            c.error(f"{path}.failure", f"a {status!r} example must carry a failure label {{kind, why}}")
        return
    if not isinstance(label, dict) or not isinstance(label.get("kind"), str) or not isinstance(label.get("why"), str):
        c.error(f"{path}.failure", f'must be {{"kind": "...", "why": "..."}} or null, got {_short(label)}')
        return
    kinds = failure_kinds()
    kind = label["kind"]
    if kind == UNPLANNED:
        if status not in FAILURE_STATUSES:
            c.error(f"{path}.failure.kind", f"an unplanned failure has a failing status, not {status!r}")
        return
    if kind not in kinds:
        c.error(f"{path}.failure.kind", f"{_short(kind)} is not a failure kind (data/failure_kinds.toml or {UNPLANNED!r})")
        return
    verdict = kinds[kind].get("verdict")
    if verdict == "fail" and status not in FAILURE_STATUSES:
        c.error(f"{path}.failure", f"a {kind!r} failure is rejected by the evaluator; the status is {status!r}")
    if verdict == "slower":
        sp = ex.get("speedup")
        value = sp.get("value") if isinstance(sp, dict) else None
        if status != "correct" or not isinstance(value, _NUM) or value >= 1.0:
            c.error(f"{path}.failure", f"a {kind!r} failure is correct and measured slower (speedup < 1)")


def _check_example(c: _Checker, ex: Any, path: str, version: int = SCHEMA_VERSION) -> bool:
    if not isinstance(ex, dict):
        c.error(path, "must be an object")
        return False
    ok = True
    for key in ("task", "trajectory", "raw_method", "think", "detail", "before", "after"):
        ok &= c.typed(ex, key, str, path)
    ok &= c.typed(ex, "step", int, path)
    if isinstance(ex.get("step"), int) and ex["step"] < 0:
        c.error(f"{path}.step", f"must be >= 0, got {ex['step']}")
        ok = False
    c.typed(ex, "author", str, path, optional=True)
    c.typed(ex, "message", str, path, optional=True)
    c.typed(ex, "gpu", (str, _NONE), path, optional=True)
    c.typed(ex, "machine", (str, _NONE), path, optional=True)
    for key in ("time_s", "floor_s"):
        if c.typed(ex, key, (*_NUM, _NONE), path, optional=True) and ex[key] is not None and not ex[key] > 0:
            c.error(f"{path}.{key}", f"a time must be > 0, got {ex[key]}")
    _check_failure(c, ex, path, version)
    status = ex.get("status", "unverified")
    if status not in STATUSES:
        c.error(f"{path}.status", f"{_short(status)} is not a status (one of {', '.join(STATUSES)})")
        ok = False
    _check_speedup(c, ex.get("speedup"), f"{path}.speedup")
    if ex.get("speedup") is not None and status != "correct":
        c.warning(f"{path}.speedup", f"a speedup is recorded for a step whose status is {status!r}")
    return ok


def validate_graph_dict(data: Any) -> list[Issue]:
    """Check a parsed graph document. An empty list means it loads into a consistent ReGraph."""
    c = _Checker()
    if not isinstance(data, dict):
        c.error("$", f"a graph file holds a JSON object, got {type(data).__name__}")
        return c.issues
    if data.get("schema") != SCHEMA:
        c.error("$.schema", f"must be {SCHEMA!r}, got {_short(data.get('schema'))}")
    version = data.get("version")
    if version not in READABLE_VERSIONS:
        c.error(
            "$.version",
            f"this regrapht reads graph format versions {', '.join(map(str, READABLE_VERSIONS))}, "
            f"the file says {_short(version)}",
        )
        version = SCHEMA_VERSION
    if data.get("target") not in GRAPH_TARGETS:
        c.error("$.target", f"must be one of {list(GRAPH_TARGETS)}, got {_short(data.get('target'))}")
    if data.get("initial") != INITIAL:
        c.error("$.initial", f"must be {INITIAL!r}, got {_short(data.get('initial'))}")
    known = {"schema", "version", "target", "initial", "nodes", "edges", "trajectories"}
    for key in sorted(set(data) - known):
        c.warning(f"$.{key}", "unknown key, ignored")

    # ---- nodes
    names: dict[str, int] = {}
    origins: dict[str, str] = {}
    nodes = data.get("nodes")
    if not isinstance(nodes, list):
        c.error("$.nodes", "must be a list of node objects")
        nodes = []
    for i, n in enumerate(nodes):
        path = f"nodes[{i}]"
        if not isinstance(n, dict):
            c.error(path, "must be an object")
            continue
        if not c.typed(n, "method", str, path):
            continue
        name = n["method"]
        path = f"nodes[{i}] ({name})"
        if name in names:
            c.error(path, f"duplicate node: also nodes[{names[name]}]")
        names[name] = i
        c.typed(n, "definition", str, path)
        c.typed(n, "category", (str, _NONE), path, optional=True)
        c.typed(n, "visits", int, path)
        origin = n.get("origin")
        if origin not in NODE_ORIGINS:
            c.error(f"{path}.origin", f"must be one of {list(NODE_ORIGINS)}, got {_short(origin)}")
        origins[name] = origin
        if (origin == "initial") != (name == INITIAL):
            c.error(f"{path}.origin", f"only the node named {INITIAL!r} has origin 'initial'")
    if INITIAL not in names:
        c.error("$.nodes", f"the initial node {INITIAL!r} is missing")

    # ---- trajectories (ledger)
    ledger: dict[str, dict[str, Any]] = {}
    trajs = data.get("trajectories", [])
    if not isinstance(trajs, list):
        c.error("$.trajectories", "must be a list")
        trajs = []
    for i, t in enumerate(trajs):
        path = f"trajectories[{i}]"
        if not isinstance(t, dict):
            c.error(path, "must be an object")
            continue
        ok = c.typed(t, "hash", str, path) & c.typed(t, "task", str, path)
        ok &= c.typed(t, "steps", int, path) & c.typed(t, "merged_steps", int, path)
        c.typed(t, "author", str, path, optional=True)
        c.typed(t, "reason", str, path, optional=True)
        reused = t.get("reused_steps", 0)
        if c.typed(t, "reused_steps", int, path, optional=True) and reused < 0:
            c.error(f"{path}.reused_steps", f"must be >= 0, got {reused}")
            reused = 0
        if t.get("outcome") not in OUTCOMES:
            c.error(f"{path}.outcome", f"must be one of {list(OUTCOMES)}, got {_short(t.get('outcome'))}")
        if not ok:
            continue
        if t["hash"] in ledger:
            c.error(path, f"duplicate trajectory hash {t['hash'][:12]}")
        if not isinstance(reused, int):
            reused = 0
        if not 0 <= t["merged_steps"] + reused <= t["steps"] or t["merged_steps"] < 0:
            c.error(
                path,
                f"merged_steps {t['merged_steps']} + reused_steps {reused} must be between 0 and steps {t['steps']}",
            )
        ledger[t["hash"]] = t

    # ---- edges
    edges = data.get("edges")
    if not isinstance(edges, list):
        c.error("$.edges", "must be a list of edge objects")
        edges = []
    seen_edges: dict[tuple[str, str], int] = {}
    seen_examples: dict[tuple[str, int], str] = {}
    merged_per_traj: dict[str, int] = {}
    in_visits: dict[str, int] = {}
    for i, e in enumerate(edges):
        path = f"edges[{i}]"
        if not isinstance(e, dict):
            c.error(path, "must be an object")
            continue
        if not (c.typed(e, "source", str, path) & c.typed(e, "target", str, path)):
            continue
        s, t = e["source"], e["target"]
        path = f"edges[{i}] ({s} -> {t})"
        if (s, t) in seen_edges:
            c.error(path, f"duplicate edge: also edges[{seen_edges[(s, t)]}]")
        seen_edges[(s, t)] = i
        for end in (s, t):
            if end not in names:
                c.error(path, f"refers to node {end!r}, which is not in nodes")
        if t == INITIAL:
            c.error(path, "no edge may lead back to the initial node")
        exs = e.get("examples")
        if not isinstance(exs, list):
            c.error(f"{path}.examples", "must be a list")
            continue
        if not exs:
            c.error(f"{path}.examples", "an edge exists only through its examples; this one has none")
        good: list[Example] = []
        codes: dict[tuple[str, str], int] = {}
        for j, ex in enumerate(exs):
            epath = f"{path}.examples[{j}]"
            if not _check_example(c, ex, epath, version):
                continue
            code = (ex["before"], ex["after"])
            if code in codes:
                # format 1 allowed it (loading deduplicates); format 2 never holds one step twice
                (c.warning if version < 2 else c.error)(
                    epath, f"same code before and after as examples[{codes[code]}] (a duplicate example)"
                )
            codes.setdefault(code, j)
            key = (ex["trajectory"], ex["step"])
            if key in seen_examples:
                c.error(
                    epath,
                    f"step {ex['step']} of trajectory {ex['trajectory'][:12]} also appears at {seen_examples[key]}",
                )
            seen_examples[key] = epath
            if ledger and ex["trajectory"] not in ledger:
                c.error(f"{epath}.trajectory", f"{ex['trajectory'][:12]} is not in the trajectories ledger")
            merged_per_traj[ex["trajectory"]] = merged_per_traj.get(ex["trajectory"], 0) + 1
            good.append(Example.from_dict(ex))
        in_visits[t] = in_visits.get(t, 0) + len(exs)
        if len(good) == len(exs) and "stats" in e:
            expected = EdgeStats.of(good).to_dict()
            stored = e["stats"]
            if version < 2 and isinstance(stored, dict):
                # format 1 counted failures by status, not by kind
                stored = {**stored, "failure_kinds": expected["failure_kinds"]}
            if stored != expected:
                diff = [k for k in expected if (e["stats"] or {}).get(k) != expected[k]]
                c.error(
                    f"{path}.stats",
                    f"do not match the examples (differ in: {', '.join(diff) or 'keys'}); "
                    "statistics are derived, rebuild or re-save the graph",
                )
        elif "stats" not in e:
            c.error(path, "missing required key 'stats'")

    for i, n in enumerate(nodes):
        if isinstance(n, dict) and isinstance(n.get("method"), str) and isinstance(n.get("visits"), int):
            name = n["method"]
            if name == INITIAL:
                expected_visits = sum(1 for t in ledger.values() if t.get("outcome") != "dropped")
            else:
                expected_visits = in_visits.get(name, 0)
            if n["visits"] != expected_visits:
                c.error(f"nodes[{i}] ({name}).visits", f"is {n['visits']}, the edges say {expected_visits}")
            if name != INITIAL and expected_visits == 0:
                c.warning(f"nodes[{i}] ({name})", "no edge leads to this node")
    for h, t in ledger.items():
        if t.get("outcome") == "dropped" and merged_per_traj.get(h, 0):
            c.error(f"trajectories ({h[:12]})", "a dropped trajectory has examples on the graph")
        elif isinstance(t.get("merged_steps"), int) and merged_per_traj.get(h, 0) != t["merged_steps"]:
            c.error(
                f"trajectories ({h[:12]}).merged_steps",
                f"is {t['merged_steps']}, the edges hold {merged_per_traj.get(h, 0)} examples of it",
            )
    return c.issues


def validate_graph(graph: ReGraph, taxonomy: Taxonomy | None = None) -> list[Issue]:
    """Check a loaded graph, its serialized form, and (when given) its nodes against a taxonomy."""
    from regrapht.graph.store import graph_to_dict

    issues = validate_graph_dict(graph_to_dict(graph))
    if taxonomy is not None:
        for name, node in sorted(graph.nodes.items()):
            if node.origin == "taxonomy" and name not in taxonomy:
                issues.append(
                    Issue("error", f"node {name}", "origin is 'taxonomy' but the taxonomy has no such method")
                )
            elif node.origin == "new":
                res = taxonomy.resolve(name, graph.target)
                if res is not None:
                    issues.append(
                        Issue(
                            "warning",
                            f"node {name}",
                            f"kept as a new method, but the taxonomy names it {res.name!r}",
                        )
                    )
            if node.origin == "taxonomy" and name in taxonomy and graph.target not in taxonomy[name].targets:
                issues.append(
                    Issue(
                        "warning",
                        f"node {name}",
                        f"the taxonomy does not list {graph.target!r} among its targets",
                    )
                )
    return issues
