"""Choosing the worked examples to show a small model for a (current code, method) pair.

Candidates are the examples on edges that lead into `method`. Ordering:
1. by evidence tier: verified and faster (measured speedup > 1) first; then verified with no measured
   speedup; then verified but slower (negative evidence, still instructive); then unverified; failed
   steps only when asked for;
2. within a tier, by code similarity of the example's `before` to the current code (embedding cosine
   with MiniLM, or a lexical identifier-bag cosine without it), plus a bonus when the example's edge
   starts at the node the current code sits on;
3. then by larger speedup, then by trajectory and step (deterministic).
Examples are taken greedily in that order while their rendering fits the token budget.

Asked for `failures=k`, retrieval also returns up to k failure examples of the method ("what went
wrong here": labelled failed attempts and unplanned failures, with their kind, why and the
evaluator's verdict), by the same similarity, after the worked examples and within the same budget.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from regrapht.graph.model import Edge, Example, ReGraph

if TYPE_CHECKING:
    from regrapht.graph.embed import Embedder

TokenCounter = Callable[[str], int]
SOURCE_BONUS = 0.25
CHARS_PER_TOKEN = 3.2


def estimate_tokens(text: str) -> int:
    """A model-free token estimate: characters / 3.2, rounded up (code tokenizes densely)."""
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def render_example(example: Example, edge: Edge) -> str:
    """The plain-text form of an example, as a prompt would show it (what the budget counts)."""
    sp = f"{example.speedup.value:.2f}x" if example.speedup is not None else "not measured"
    if example.is_failure:
        return render_failure(example, edge)
    return (
        f"### {edge.source} -> {edge.target} (task {example.task}, {example.status}, speedup {sp})\n"
        f"Reasoning: {example.think.strip()}\n"
        f"Change: {example.detail.strip()}\n"
        f"Before:\n```\n{example.before.rstrip()}\n```\n"
        f"After:\n```\n{example.after.rstrip()}\n```\n"
    )


def render_failure(example: Example, edge: Edge) -> str:
    """A failure example as a prompt shows it: what was tried, what went wrong, the failing code."""
    label = example.failure
    kind = example.failure_kind or "failure"
    verdict = example.status
    if example.speedup is not None:
        verdict += f", {example.speedup.value:.2f}x (slower)"
    why = label.why if label is not None and label.why else ""
    message = " ".join(example.message.split())
    return (
        f"### {edge.source} -> {edge.target} failed: {kind} (task {example.task}, {verdict})\n"
        f"Attempt: {example.detail.strip()}\n"
        + (f"What went wrong: {why}\n" if why else "")
        + (f"Evaluator: {message}\n" if message else "")
        + f"Failing code:\n```\n{example.after.rstrip()}\n```\n"
    )


def tier(example: Example) -> int:
    if example.is_failure:
        return 4
    if example.verified:
        if example.speedup is None:
            return 1
        return 0 if example.speedup.value > 1.0 else 2
    return 3


_IDENT_RE = re.compile(r"[A-Za-z_]\w*")


def _bag(code: str) -> Counter[str]:
    return Counter(_IDENT_RE.findall(code))


def lexical_similarity(a: str, b: str) -> float:
    """Cosine similarity of identifier/keyword counts: a cheap, model-free code similarity."""
    ca, cb = _bag(a), _bag(b)
    if not ca or not cb:
        return 0.0
    dot = sum(v * cb.get(k, 0) for k, v in ca.items())
    na = math.sqrt(sum(v * v for v in ca.values()))
    nb = math.sqrt(sum(v * v for v in cb.values()))
    return min(1.0, dot / (na * nb))


@dataclass(frozen=True)
class Retrieved:
    edge: Edge
    example: Example
    tier: int
    similarity: float
    score: float
    tokens: int

    @property
    def is_failure(self) -> bool:
        return self.example.is_failure

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.edge.source,
            "target": self.edge.target,
            "task": self.example.task,
            "trajectory": self.example.trajectory,
            "step": self.example.step,
            "status": self.example.status,
            "speedup": None if self.example.speedup is None else self.example.speedup.value,
            "gpu": self.example.gpu,
            "machine": self.example.machine,
            "failure": None if self.example.failure is None else self.example.failure.to_dict(),
            "tier": self.tier,
            "similarity": round(self.similarity, 4),
            "tokens": self.tokens,
        }


def _similarities(
    code: str,
    befores: Sequence[str],
    embedder: Embedder | None,
    similarity: Callable[[str, str], float] | None = None,
) -> list[float]:
    if similarity is not None:
        return [similarity(code, b) for b in befores]
    if embedder is not None and befores:
        vecs = embedder.encode([code, *befores])
        return [float(x) for x in vecs[1:] @ vecs[0]]
    return [lexical_similarity(code, b) for b in befores]


def retrieve_examples(
    graph: ReGraph,
    code: str,
    method: str,
    *,
    source: str | Sequence[str] | None = None,
    k: int = 3,
    budget_tokens: int = 4000,
    count_tokens: TokenCounter | None = None,
    embedder: Embedder | None = None,
    include_failures: bool = False,
    failures: int = 0,
    render: Callable[[Example, Edge], str] = render_example,
    similarity: Callable[[str, str], float] | None = None,
) -> list[Retrieved]:
    """Up to `k` examples of applying `method` to code like `code`, then up to `failures` failure
    examples of it (`Retrieved.is_failure`), all within `budget_tokens`. `source` names the node(s)
    the current code sits on (examples from there get a bonus). `include_failures` lets failures
    compete for the `k` places too (last tier). `similarity(code, before)` replaces the embedding or
    lexical similarity when given."""
    count = count_tokens or estimate_tokens
    sources = {source} if isinstance(source, str) else set(source or ())
    pairs = [(e, x) for e in graph.in_edges(method) for x in e.examples]
    if not pairs or (k <= 0 and failures <= 0):
        return []
    sims = _similarities(code, [x.before for _, x in pairs], embedder, similarity)
    scored = []
    for (edge, ex), sim in zip(pairs, sims):
        score = sim + (SOURCE_BONUS if edge.source in sources else 0.0)
        speed = ex.speedup.value if ex.speedup is not None else 0.0
        scored.append((tier(ex), -score, -speed, ex.trajectory, ex.step, edge, ex, sim, score))
    scored.sort(key=lambda t: t[:5])
    out: list[Retrieved] = []
    left = budget_tokens
    # the k worked examples first (failures only when `include_failures`), then the failures asked for
    passes = ((k, lambda x: include_failures or not x.is_failure), (failures, lambda x: x.is_failure))
    for wanted, eligible in passes:
        taken = 0
        for t, _, _, _, _, edge, ex, sim, score in scored:
            if taken >= wanted:
                break
            if not eligible(ex) or any(r.example is ex for r in out):
                continue
            n = count(render(ex, edge))
            if n > left:
                continue
            out.append(Retrieved(edge, ex, t, sim, score, n))
            left -= n
            taken += 1
    return out
