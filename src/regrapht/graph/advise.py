"""The advisor: where does this code sit on the graph, and which method should come next?

No model is involved. (1) The static recognizer lists the methods the code already uses. (2) The
code is placed on the graph at those methods that are nodes; code with none of them (serial code, or
a kernel using only methods the graph has not seen) sits at the initial node. (3) Candidate next
methods are the targets of edges leaving those nodes, minus methods already present; their examples
are pooled and ranked by evidence:

    score = policy_weight(pooled stats) * (SIMILARITY_FLOOR + similarity)

`policy_weight` counts the tasks that took the transition, its smoothed verified share (failures
count against it) and its measured gain shrunk towards 1 by the number of measurements, so one
outlier (a 236x step measured once) does not lead; `similarity` is how close the user's code is to
the code the examples started from (the best identifier-bag cosine), so a method that worked on
kernels like this one comes before one that worked on unlike code. Similarity is the suite's own
token screen (regrapht/tasks/similarity.py: multiset Jaccard of token 3-grams, names kept, numbers
folded), which tells a saxpy from a reduction better than a bag of identifiers does. If no edge leaves the code's
nodes, every method on the graph not yet present is ranked the same way over all its incoming edges
(marked `from_anywhere`). (4) The best worked examples of the top methods come from `retrieve`,
and on request their failed attempts ("what went wrong here").
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from regrapht.graph.model import INITIAL, EdgeStats, Example, ReGraph
from regrapht.graph.recognize import Recognition, recognize
from regrapht.graph.retrieve import Retrieved, TokenCounter, retrieve_examples

if TYPE_CHECKING:
    from regrapht.graph.embed import Embedder


SIMILARITY_FLOOR = 0.25  # an unlike kernel still counts a quarter as much as an identical one
Z95 = 1.96


@dataclass
class Suggestion:
    method: str
    score: float
    via: list[str]  # the nodes whose out-edges suggested it
    stats: EdgeStats
    from_anywhere: bool = False
    examples: list[Retrieved] = field(default_factory=list)
    similarity: float = 0.0  # of the user's code to the closest example's starting code
    gain_interval: tuple[float, float] | None = None  # ~95% interval of the geometric-mean gain
    weight: float = 0.0  # policy_weight of the pooled examples

    def to_dict(self) -> dict[str, Any]:
        return {
            "method": self.method,
            "score": round(self.score, 4),
            "weight": round(self.weight, 4),
            "similarity": round(self.similarity, 4),
            "gain_interval": None if self.gain_interval is None else [round(x, 4) for x in self.gain_interval],
            "via": self.via,
            "from_anywhere": self.from_anywhere,
            "stats": self.stats.to_dict() | {"verified_share": round(self.stats.verified_share, 4)},
            "examples": [r.to_dict() for r in self.examples if not r.is_failure],
            "failures": [r.to_dict() | {"message": r.example.message} for r in self.examples if r.is_failure],
        }


@dataclass
class Advice:
    target: str
    recognition: Recognition
    position: list[str]
    suggestions: list[Suggestion]
    warnings: list[str] = field(default_factory=list)  # about the input (empty, not code, ...)

    def to_dict(self) -> dict[str, Any]:
        return {
            "target": self.target,
            "warnings": self.warnings,
            "recognized": self.recognition.to_dict()["methods"],
            "notice": self.recognition.notice,
            "position": self.position,
            "suggestions": [s.to_dict() for s in self.suggestions],
        }


def input_warnings(code: str, target: str) -> list[str]:
    """What is wrong with the input as a kernel to advise on: empty, not text, not code, or (cuda)
    no kernel in it. The advice is still computed, but from the initial node's record only."""
    if not code.strip():
        return ["the input is empty: there is no code to place on the graph"]
    if "\x00" in code:
        return ["the input is not text (it holds NUL bytes): is it a binary file?"]
    out = []
    if not any(ch in code for ch in "{;") or "(" not in code:
        out.append("the input does not look like C/C++/CUDA code (no braces, semicolons or calls)")
    elif target == "cuda" and "__global__" not in code:
        out.append("no __global__ kernel in the input: the advice is for serial code (initial node)")
    return out


@lru_cache(maxsize=4096)
def _shingles(code: str) -> Counter:
    from regrapht.tasks.similarity import leakage_rule, shingles

    return shingles(code, leakage_rule().ngram)


def gain_interval(examples: list[Example]) -> tuple[float, float] | None:
    """An approximate 95% interval of the geometric-mean gain of the verified, measured examples:
    one example gives its own measured interval; several, exp(mean log +- 1.96 standard errors)."""
    measured = [x.speedup for x in examples if x.verified and x.speedup is not None and x.speedup.value > 0]
    if not measured:
        return None
    if len(measured) == 1:
        sp = measured[0]
        if sp.ci_low is None or sp.ci_high is None:
            return None
        return (sp.ci_low, sp.ci_high)
    logs = [math.log(sp.value) for sp in measured]
    mean = sum(logs) / len(logs)
    sd = math.sqrt(sum((v - mean) ** 2 for v in logs) / (len(logs) - 1))
    half = Z95 * sd / math.sqrt(len(logs))
    return (math.exp(mean - half), math.exp(mean + half))


def score_stats(stats: EdgeStats) -> float:
    """The plain smoothed verified share times the measured gain (no shrinkage: one outlier leads).
    Kept for readers comparing; the advisor ranks with `policy_weight` and similarity."""
    gain = stats.geomean if stats.geomean is not None else 1.0
    return (stats.verified + 1) / (stats.taken + 2) * gain


def policy_weight(stats: EdgeStats, *, pseudo_tasks: float = 0.5, shrink: float = 3.0) -> float:
    """How strongly the teachers' record recommends taking an edge, for a search's prior: the number
    of tasks that took it (plus `pseudo_tasks`, so an edge nobody else took keeps a little weight),
    times its smoothed verified share, times its measured gain shrunk towards 1 by the evidence behind
    it: exp(n / (n + shrink) * mean log gain), the exponent clipped to [-1, 1].

    Unlike `score_stats`, one example's outlier gain (a 236x step measured on a single task) does not
    outrank an edge that fourteen tasks took: how often teachers chose a step from here predicts
    whether it applies to a new task; a gain measured once says little about another task. Tasks are
    those with a verified example; failure examples (labelled failed attempts, unplanned failures)
    count in `taken` and not in `verified`, so an edge that often goes wrong weighs less, never more."""
    share = (stats.verified + 1) / (stats.taken + 2)
    log_gain = 0.0
    if stats.speedup is not None and stats.geomean:
        n = stats.speedup["n"]
        log_gain = max(-1.0, min(1.0, n / (n + shrink) * math.log(stats.geomean)))
    return (stats.verified_tasks + pseudo_tasks) * share * math.exp(log_gain)


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
    failures_per_method: int = 0,
    budget_tokens: int | None = None,
    count_tokens: TokenCounter | None = None,
    embedder: Embedder | None = None,
) -> Advice:
    """Rank the next methods for `code` and attach worked examples. `budget_tokens` caps the
    rendered examples per suggestion when they go into a prompt; None (a person reading) shows the
    `examples_per_method` best whatever their length."""
    from regrapht.tasks.similarity import jaccard

    rec = recognize(code, graph.target)
    warnings = input_warnings(code, graph.target)
    mine = _shingles(code)
    present = set(rec.names)
    position = place(graph, rec.names)
    pooled: dict[str, list[Example]] = {}
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
        weight = policy_weight(st)
        sim = max((jaccard(mine, _shingles(x.before)) for x in examples if x.verified), default=0.0)
        suggestions.append(
            Suggestion(
                method,
                weight * (SIMILARITY_FLOOR + sim),
                sorted(set(via[method])),
                st,
                from_anywhere,
                similarity=sim,
                gain_interval=gain_interval(examples),
                weight=weight,
            )
        )
    suggestions.sort(key=lambda s: (-s.score, -s.stats.verified, s.method))
    suggestions = suggestions[:top]
    for s in suggestions:
        s.examples = retrieve_examples(
            graph,
            code,
            s.method,
            source=position,
            k=examples_per_method,
            failures=failures_per_method,
            budget_tokens=budget_tokens if budget_tokens is not None else 10**9,
            count_tokens=count_tokens,
            embedder=embedder,
            # the ranking's similarity, unless a model embeds the code
            similarity=None if embedder is not None else lambda a, b: jaccard(mine, _shingles(b)),
        )
    return Advice(graph.target, rec, position, suggestions, warnings)
