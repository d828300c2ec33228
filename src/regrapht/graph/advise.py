"""The advisor: where does this code sit on the graph, and which method should come next?

No model is involved. (1) The static recognizer lists the methods the code already uses. (2) The
code is placed on the graph at those methods that are nodes; code with none of them (serial code, or
a kernel using only methods the graph has not seen) sits at the initial node. (3) Candidate next
methods are the targets of edges leaving those nodes, minus methods already present; their examples
are pooled and ranked by

    score = (verified + 1) / (taken + 2) * geomean speedup of the verified, measured examples

(a smoothed verified share times the measured gain; 1.0 stands in for an unmeasured gain). If no edge
leaves the code's nodes, every method on the graph not yet present is ranked the same way over all
its incoming edges (marked `from_anywhere`). (4) The best worked examples of the top methods come
from `retrieve`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from regrapht.graph.model import INITIAL, EdgeStats, ReGraph
from regrapht.graph.recognize import Recognition, recognize
from regrapht.graph.retrieve import Retrieved, TokenCounter, retrieve_examples

if TYPE_CHECKING:
    from regrapht.graph.embed import Embedder


@dataclass
class Suggestion:
    method: str
    score: float
    via: list[str]  # the nodes whose out-edges suggested it
    stats: EdgeStats
    from_anywhere: bool = False
    examples: list[Retrieved] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "method": self.method,
            "score": round(self.score, 4),
            "via": self.via,
            "from_anywhere": self.from_anywhere,
            "stats": self.stats.to_dict() | {"verified_share": round(self.stats.verified_share, 4)},
            "examples": [r.to_dict() for r in self.examples],
        }


@dataclass
class Advice:
    target: str
    recognition: Recognition
    position: list[str]
    suggestions: list[Suggestion]

    def to_dict(self) -> dict[str, Any]:
        return {
            "target": self.target,
            "recognized": self.recognition.to_dict()["methods"],
            "notice": self.recognition.notice,
            "position": self.position,
            "suggestions": [s.to_dict() for s in self.suggestions],
        }


def score_stats(stats: EdgeStats) -> float:
    gain = stats.geomean if stats.geomean is not None else 1.0
    return (stats.verified + 1) / (stats.taken + 2) * gain


def policy_weight(stats: EdgeStats, *, pseudo_tasks: float = 0.5, shrink: float = 3.0) -> float:
    """How strongly the teachers' record recommends taking an edge, for a search's prior: the number
    of tasks that took it (plus `pseudo_tasks`, so an edge nobody else took keeps a little weight),
    times its smoothed verified share, times its measured gain shrunk towards 1 by the evidence behind
    it: exp(n / (n + shrink) * mean log gain), the exponent clipped to [-1, 1].

    Unlike `score_stats`, one example's outlier gain (a 236x step measured on a single task) does not
    outrank an edge that fourteen tasks took: how often teachers chose a step from here predicts
    whether it applies to a new task; a gain measured once says little about another task."""
    share = (stats.verified + 1) / (stats.taken + 2)
    log_gain = 0.0
    if stats.speedup is not None and stats.geomean:
        n = stats.speedup["n"]
        log_gain = max(-1.0, min(1.0, n / (n + shrink) * math.log(stats.geomean)))
    return (stats.tasks + pseudo_tasks) * share * math.exp(log_gain)


def place(graph: ReGraph, recognized: list[str]) -> list[str]:
    """The graph nodes the code sits on (the initial node when none of its methods is on the graph)."""
    on_graph = [m for m in recognized if m in graph.nodes and m != INITIAL]
    return on_graph or [INITIAL]


def advise(
    graph: ReGraph,
    code: str,
    *,
    top: int = 5,
    examples_per_method: int = 1,
    budget_tokens: int = 3000,
    count_tokens: TokenCounter | None = None,
    embedder: Embedder | None = None,
) -> Advice:
    rec = recognize(code, graph.target)
    present = set(rec.names)
    position = place(graph, rec.names)
    pooled: dict[str, list] = {}
    via: dict[str, list[str]] = {}
    for node in position:
        for edge in graph.out_edges(node):
            if edge.target in present or edge.target == INITIAL:
                continue
            pooled.setdefault(edge.target, []).extend(edge.examples)
            via.setdefault(edge.target, []).append(node)
    from_anywhere = not pooled
    if from_anywhere:
        for name in graph.method_nodes():
            if name in present:
                continue
            for edge in graph.in_edges(name):
                pooled.setdefault(name, []).extend(edge.examples)
                via.setdefault(name, []).append(edge.source)
    suggestions = []
    for method, examples in pooled.items():
        st = EdgeStats.of(examples)
        suggestions.append(Suggestion(method, score_stats(st), sorted(set(via[method])), st, from_anywhere))
    suggestions.sort(key=lambda s: (-s.score, -s.stats.verified, s.method))
    suggestions = suggestions[:top]
    per = budget_tokens // max(1, len(suggestions)) if suggestions else 0
    for s in suggestions:
        s.examples = retrieve_examples(
            graph,
            code,
            s.method,
            source=position,
            k=examples_per_method,
            budget_tokens=per,
            count_tokens=count_tokens,
            embedder=embedder,
        )
    return Advice(graph.target, rec, position, suggestions)
