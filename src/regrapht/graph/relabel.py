"""Relabeling: map the method name of each trajectory step onto a node of the graph, or keep it new.

Two relabelers share one interface, `relabel(names, graph) -> list[Label]`, one label per step:

- `ModelRelabeler` does what the paper does: it shows a model the known methods with their
  definitions and the trajectory's step names and details (template `relabel.j2`), and reads back one
  label per step. If the answer does not have exactly one usable entry per step, the whole trajectory
  is dropped (`RelabelError`).
- `OfflineRelabeler` is deterministic and needs no model: (1) normalized canonical names, (2) the
  taxonomy's synonyms, (3) an exact match with a method already on the graph that the taxonomy does
  not know, (4) a multi-word synonym contained in the name when it names exactly one method, (5)
  embedding similarity with the MiniLM sentence model above a threshold and a margin, unless the
  name is closer to a known distinct method (the taxonomy's [[distinct]] list). Anything else stays a
  new method. Without the model package, step (5) is skipped and `notice` says so.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from regrapht.graph.model import INITIAL, ReGraph
from regrapht.graph.taxonomy import Taxonomy, default_taxonomy, normalize_name, snake_case

if TYPE_CHECKING:
    from regrapht.graph.embed import Embedder

EMBED_THRESHOLD = 0.75
EMBED_MARGIN = 0.04


class RelabelError(ValueError):
    """Relabeling did not produce one label per step: the trajectory is dropped."""


@dataclass(frozen=True)
class Label:
    raw: str  # the name the step used
    method: str  # the node it lands on
    how: str  # "exact" | "synonym" | "graph" | "contained" | "embedding" | "model" | "new"
    score: float | None = None  # similarity for "embedding"

    @property
    def is_new(self) -> bool:
        return self.how == "new"


class Relabeler(Protocol):
    """One label per step name; `details` (what each step changed) helps a model judge."""

    def relabel(
        self, names: Sequence[str], graph: ReGraph, details: Sequence[str] | None = None
    ) -> list[Label]: ...


def check_alignment(names: Sequence[str], labels: Sequence[Label]) -> list[Label]:
    """The paper's rule: a trajectory enters the graph only if its labels line up with its steps."""
    if len(labels) != len(names):
        raise RelabelError(f"relabeling returned {len(labels)} labels for {len(names)} steps")
    for i, lab in enumerate(labels):
        if lab.method == INITIAL or not lab.method:
            raise RelabelError(f"step {i} ({names[i]!r}) was labeled {lab.method!r}, which is not a method")
    return list(labels)


class OfflineRelabeler:
    """Deterministic relabeling by names, synonyms and (optionally) embedding similarity."""

    def __init__(
        self,
        taxonomy: Taxonomy | None = None,
        embedder: Embedder | None | str = "auto",
        threshold: float = EMBED_THRESHOLD,
        margin: float = EMBED_MARGIN,
    ) -> None:
        self.taxonomy = taxonomy if taxonomy is not None else default_taxonomy()
        self.threshold = threshold
        self.margin = margin
        self.notice = ""
        if embedder == "auto":
            from regrapht.graph.embed import load_embedder

            self.embedder, self.notice = load_embedder()
        else:
            self.embedder = embedder  # type: ignore[assignment]
            if embedder is None:
                self.notice = "embedding similarity is off by request; matching uses names and synonyms only"

    # ------------------------------------------------------------------ single names
    def _contained(self, key: str, target: str) -> str | None:
        """A multi-word synonym or name found inside the name, naming exactly one method."""
        padded = f" {key} "
        hits: dict[str, int] = {}
        for m in self.taxonomy.for_target(target):
            for phrase in (m.name.replace("_", " "), *m.synonyms):
                p = normalize_name(phrase)
                if p.count(" ") >= 1 and f" {p} " in padded:
                    hits[m.name] = max(hits.get(m.name, 0), len(p))
        return next(iter(hits)) if len(hits) == 1 else None

    def label_one(self, raw: str, graph: ReGraph) -> Label:
        target = graph.target
        res = self.taxonomy.resolve(raw, target)
        if res is not None:
            return Label(raw, res.name, res.how)
        snake = snake_case(raw)
        if snake in graph.nodes and snake != INITIAL:
            return Label(raw, snake, "graph")
        key = normalize_name(raw)
        if key in self.taxonomy.distinct:
            return Label(raw, snake, "new")
        contained = self._contained(key, target)
        if contained is not None:
            return Label(raw, contained, "contained")
        if self.embedder is not None:
            hit = self._nearest(raw, graph)
            if hit is not None:
                return Label(raw, hit[0], "embedding", round(hit[1], 4))
        return Label(raw, snake, "new")

    def _nearest(self, raw: str, graph: ReGraph) -> tuple[str, float] | None:
        assert self.embedder is not None
        from regrapht.graph.embed import cosine_matrix

        phrases = self.taxonomy.phrases(graph.target)
        for name, node in graph.nodes.items():
            if node.origin == "new":
                phrases.append((name, name.replace("_", " ")))
                phrases.append((name, node.definition))
        distinct = [(f"distinct:{k}", k) for k in self.taxonomy.distinct]
        table = phrases + distinct
        sims = cosine_matrix(self.embedder.encode([raw]), self.embedder.encode([p for _, p in table]))[0]
        best: dict[str, float] = {}
        for (name, _), s in zip(table, sims):
            best[name] = max(best.get(name, -1.0), float(s))
        ranked = sorted(best.items(), key=lambda kv: (-kv[1], kv[0]))
        (top, s1) = ranked[0]
        s2 = ranked[1][1] if len(ranked) > 1 else -1.0
        if top.startswith("distinct:") or s1 < self.threshold or s1 - s2 < self.margin:
            return None
        return top, s1

    # ------------------------------------------------------------------ trajectories
    def relabel(
        self, names: Sequence[str], graph: ReGraph, details: Sequence[str] | None = None
    ) -> list[Label]:
        return check_alignment(names, [self.label_one(n, graph) for n in names])


# ---------------------------------------------------------------------- model relabeling


def known_methods(graph: ReGraph, taxonomy: Taxonomy) -> dict[str, str]:
    """The methods a relabel prompt offers: the taxonomy's methods for the graph's target plus the
    methods already on the graph, name -> definition."""
    known: dict[str, str] = {m.name: m.definition for m in taxonomy.for_target(graph.target)}
    for name, node in sorted(graph.nodes.items()):
        if name != INITIAL and name not in known:
            known[name] = node.definition
    return known


class ModelRelabeler:
    """The paper's relabel step with a model (`regrapht.llm` ChatModel), prompt `relabel.j2`.

    The model answers one {existed, method} per step. An existing method must be one of the offered
    names; a new one is kept as a new node (snake_cased, or mapped onto a known method when its name
    is a taxonomy synonym). An answer that cannot be read, names an unknown "existing" method, or has
    a different count than the steps drops the trajectory (RelabelError)."""

    def __init__(self, model: object, taxonomy: Taxonomy | None = None, params: object = None) -> None:
        self.model = model
        self.taxonomy = taxonomy if taxonomy is not None else default_taxonomy()
        self.params = params

    def relabel(
        self, names: Sequence[str], graph: ReGraph, details: Sequence[str] | None = None
    ) -> list[Label]:
        from regrapht.graph.prompts import chat_request
        from regrapht.llm.parse import ParseFailure, parse_relabel

        known = known_methods(graph, self.taxonomy)
        steps = [{"method": n, "detail": (details[i] if details else "")} for i, n in enumerate(names)]
        request = chat_request(
            "relabel",
            {"methods": [{"name": k, "definition": v} for k, v in known.items()], "steps": steps},
            params=self.params,
        )
        answer = self.model.generate([request])[0].text  # type: ignore[attr-defined]
        parsed = parse_relabel(answer, expected_count=len(names), canonical_methods=list(known))
        if isinstance(parsed, ParseFailure):
            raise RelabelError(f"the model's relabel answer was not usable: {parsed.message}")
        labels = []
        for raw, item in zip(names, parsed.items):
            if item.existed:
                labels.append(Label(raw, item.method, "model"))
                continue
            res = self.taxonomy.resolve(item.method, graph.target)
            if res is not None:
                labels.append(Label(raw, res.name, "model"))
            else:
                labels.append(Label(raw, snake_case(item.method), "new"))
        return check_alignment(names, labels)
