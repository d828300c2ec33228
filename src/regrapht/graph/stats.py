"""Summary statistics of a graph (for `regrapht graph stats`)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from regrapht.graph.model import ReGraph


def _edge_row(edge: Any) -> dict[str, Any]:
    st = edge.stats
    return {
        "source": edge.source,
        "target": edge.target,
        "taken": st.taken,
        "verified": st.verified,
        "failures": st.failures,
        "geomean": st.geomean,
        "measured": 0 if st.speedup is None else st.speedup["n"],
    }


def graph_stats(graph: ReGraph, top: int = 10) -> dict[str, Any]:
    examples = [x for _, x in graph.examples()]
    verified = sum(1 for x in examples if x.verified)
    outcomes = Counter(r.outcome for r in graph.ledger.values())
    edges = [graph.edges[k] for k in sorted(graph.edges)]
    by_count = sorted(edges, key=lambda e: (-len(e.examples), e.source, e.target))[:top]
    gained = [e for e in edges if e.stats.geomean is not None]
    by_gain = sorted(
        gained, key=lambda e: (-(e.stats.geomean or 0.0), -e.stats.verified, e.source, e.target)
    )[:top]
    nodes = graph.method_nodes()
    return {
        "target": graph.target,
        "nodes": len(graph.nodes),
        "method_nodes": len(nodes),
        "new_methods": sorted(n for n in nodes if graph.nodes[n].origin == "new"),
        "edges": len(graph.edges),
        "self_loops": sum(1 for s, t in graph.edges if s == t),
        # examples are distinct on (edge, code before, code after): the graph keeps one of each
        "examples": len(examples),
        "distinct_examples": len({(e.source, e.target, x.before, x.after) for e, x in graph.examples()}),
        "verified": verified,
        "verified_share": round(verified / len(examples), 4) if examples else 0.0,
        "failures": sum(1 for x in examples if x.is_failure),
        "failure_kinds": dict(sorted(Counter(x.failure_kind for x in examples if x.failure_kind).items())),
        "reused_steps": sum(r.reused_steps for r in graph.ledger.values()),
        "unverified": sum(1 for x in examples if x.status == "unverified"),
        "distinct_tasks": len({x.task for x in examples}),
        "gpus": sorted({x.gpu for x in examples if x.gpu}),
        "machines": dict(sorted(Counter(x.machine or "not recorded" for x in examples).items())),
        "trajectories": {k: outcomes.get(k, 0) for k in ("merged", "cut", "unreproduced", "dropped")},
        "top_by_count": [_edge_row(e) for e in by_count],
        "top_by_gain": [_edge_row(e) for e in by_gain],
    }
