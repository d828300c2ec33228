"""The baselines MCGS is measured against, each spending the same kind of budget.

- `standard`: one prompt with the task (template standard.j2); with a budget of n, n samples of it.
- `cot`: the same with a chain-of-thought prompt (cot.j2).
- `rag`: the task preceded by the worked examples nearest to its serial code among the graph's
  trajectories (rag.j2): each example is a trajectory's starting code and its best verified code.
- `walk`: ReGraphT without MCGS: a random walk along the graph from the starting code; each step
  draws a successor method (weighted by how often the graph took that transition) and applies it with
  optimize_step.j2; a failing step is retried, drawing again, at most `attempts` times per step; the
  walk ends at a dead end, after `max_steps`, or when a step fails `attempts` times, and starts
  again from the starting code while budget remains (`restart`).
- `greedy`: like the walk, but always the successor with the best graph prior (smoothed verified share
  x geometric-mean gain); a failing step falls back to the next best; a restart never repeats a
  (code, method) pair it tried.
- `refine`: iterative refinement: a standard prompt, then repeatedly refine.j2 with the evaluator's
  verdict on the latest candidate (compiler output, mismatching outputs, or the measured speedups).
- `contrastive`: as in CUDA-L1: a standard prompt, then contrastive.j2 showing earlier variants
  with their measured speedups (the best correct ones and the latest failure), slowest first.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from regrapht.search.context import Point, SearchContext, Steps, task_variables
from regrapht.search.record import Attempt
from regrapht.search.strategy import ParamsMixin


def _variables(ctx: SearchContext, **extra: Any) -> dict[str, Any]:
    return {"task": task_variables(ctx.task), "target": ctx.target, **extra}


def _repeat(
    ctx: SearchContext, template: str, variables: dict[str, Any], kind: str, items: str | None = None
) -> Steps:
    request = ctx.request(template, variables, items)
    while True:
        ctx.check_budget()
        yield from ctx.attempt(request, kind=kind, parent=None)


@dataclass
class StandardStrategy(ParamsMixin):
    """One prompt with the task (standard.j2); a budget of n draws n samples of it."""

    name = "standard"
    needs_graph = False
    default_budget = 1

    def run(self, ctx: SearchContext) -> Steps:
        yield from _repeat(ctx, "standard", _variables(ctx), "single")


@dataclass
class CoTStrategy(ParamsMixin):
    """Chain of thought: reason about the parallelisation first (cot.j2); n samples for a budget of n."""

    name = "cot"
    needs_graph = False
    default_budget = 1

    def run(self, ctx: SearchContext) -> Steps:
        yield from _repeat(ctx, "cot", _variables(ctx), "single")


@dataclass
class RAGStrategy(ParamsMixin):
    """Retrieval-augmented: the graph's worked examples nearest to the task's code precede it (rag.j2)."""

    examples: int = 3  # examples shown
    exclude_same_task: bool = True  # never show the task's own recorded solution

    name = "rag"
    needs_graph = True
    default_budget = 1

    def run(self, ctx: SearchContext) -> Steps:
        examples = nearest_examples(ctx, self.examples, self.exclude_same_task)
        yield from _repeat(ctx, "rag", _variables(ctx, examples=examples), "single", items="examples")


def trajectory_examples(ctx: SearchContext) -> list[dict[str, Any]]:
    """One example per trajectory on the graph: its starting code and its last verified code."""
    g = ctx.graph
    assert g is not None
    steps: dict[str, list[tuple[int, str, Any]]] = {}
    for edge, ex in g.examples():
        steps.setdefault(ex.trajectory, []).append((ex.step, edge.target, ex))
    out = []
    for traj in sorted(steps):
        chain = sorted(steps[traj], key=lambda s: s[0])
        if chain[0][0] != 0:
            continue
        verified = [s for s in chain if s[2].verified or s[2].status == "unverified"]
        if not verified:
            continue
        last = verified[-1]
        methods = " -> ".join(m for _, m, _ in chain[: chain.index(last) + 1])
        first = chain[0][2]
        gain = 1.0
        for _, _, ex in chain[: chain.index(last) + 1]:
            gain *= ex.speedup.value if ex.speedup is not None else 1.0
        out.append(
            {
                "task": first.task,
                "trajectory": traj,
                "description": f"{first.task} ({methods})",
                "before": first.before,
                "after": last[2].after,
                "gain": gain,  # product of the measured step speedups (1 where unmeasured)
            }
        )
    return out


def nearest_examples(ctx: SearchContext, k: int, exclude_same_task: bool) -> list[dict[str, Any]]:
    """The k trajectory examples whose starting code is most similar to the task's serial code (MiniLM
    embeddings when an embedder is given, else the identifier-bag cosine), one per task: of a task's
    trajectories, the one whose measured steps gained most."""
    from regrapht.graph.retrieve import lexical_similarity

    source = ctx.task.serial_source()
    pool = [e for e in trajectory_examples(ctx) if not (exclude_same_task and e["task"] == ctx.task.id)]
    if not pool:
        return []
    if ctx.embedder is not None:
        vecs = ctx.embedder.encode([source, *(e["before"] for e in pool)])
        sims = [float(x) for x in vecs[1:] @ vecs[0]]
    else:
        sims = [lexical_similarity(source, e["before"]) for e in pool]
    # most similar first; among a task's trajectories (same starting code) the one that gained most
    ranked = sorted(
        zip(sims, pool), key=lambda sp: (-sp[0], -sp[1]["gain"], sp[1]["task"], sp[1]["trajectory"])
    )
    chosen: list[dict[str, Any]] = []
    seen: set[str] = set()
    for _, e in ranked:
        if e["task"] in seen:
            continue
        seen.add(e["task"])
        chosen.append({"description": e["description"], "before": e["before"], "after": e["after"]})
        if len(chosen) == k:
            break
    return chosen


# ---- walks on the graph ----------------------------------------------------------------------------


def _edge_weight(ctx: SearchContext, point: Point, method: str) -> int:
    """How often the other tasks took the transition (at least 1, so every successor can be drawn)."""
    return ctx.edge_evidence(point, method)[1] or 1


def _graph_step(ctx: SearchContext, point: Point, method: str, kind: str) -> Steps:
    request, shown = ctx.step_request(point, method)
    attempt = yield from ctx.attempt(request, kind=kind, parent=point, method=method, examples=shown)
    return attempt


@dataclass
class WalkStrategy(ParamsMixin):
    """ReGraphT without MCGS: a random walk along the graph, at most `attempts` tries per step."""

    attempts: int = 5  # tries per step before the walk gives up
    max_steps: int = 6  # steps per walk
    restart: bool = True  # start a new walk from the starting code while budget remains

    name = "walk"
    needs_graph = True
    default_budget = 16

    def run(self, ctx: SearchContext) -> Steps:
        walks = 0
        while True:
            ctx.check_budget()
            progressed = yield from self.walk(ctx)
            walks += 1
            ctx.result.details["walks"] = walks
            if not self.restart or not progressed:
                ctx.result.stopped = (
                    "walk ended" if not self.restart else "no step can be taken from the start"
                )
                return

    def walk(self, ctx: SearchContext) -> Steps:
        point = ctx.start
        spent = False
        for _ in range(self.max_steps):
            successors = ctx.successors(point)
            if not successors:
                break
            weights = [_edge_weight(ctx, point, m) for m in successors]
            moved = None
            for _ in range(self.attempts):
                method = ctx.rng.choices(successors, weights=weights)[0]
                attempt = yield from _graph_step(ctx, point, method, "walk")
                spent = True
                if attempt.correct:
                    moved = attempt
                    break
            if moved is None:
                break
            point = ctx.point(moved)
        return spent


@dataclass
class GreedyStrategy(ParamsMixin):
    """Greedy on the graph: always the successor with the best prior; failures fall back to the next."""

    attempts: int = 5  # tries per step (the next-best method each time)
    max_steps: int = 6
    restart: bool = True  # walk again from the start, never repeating a (code, method) pair ...
    samples_per_action: int = (
        3  # ... until every pair was tried; then each pair may be asked again, up to this
    )

    name = "greedy"
    needs_graph = True
    default_budget = 16

    def run(self, ctx: SearchContext) -> Steps:
        tried: Counter[tuple[Any, str]] = Counter()
        limit = 1
        while True:
            ctx.check_budget()
            spent = yield from self.descend(ctx, tried, limit)
            if not self.restart:
                ctx.result.stopped = "greedy descent ended"
                return
            if not spent:
                if limit >= self.samples_per_action:
                    ctx.result.stopped = "every (code, method) pair was tried"
                    return
                limit += 1  # everything was tried this often: allow one more sample of each pair

    def descend(self, ctx: SearchContext, tried: Counter[tuple[Any, str]], limit: int) -> Steps:
        point = ctx.start
        spent = False
        for _ in range(self.max_steps):
            ranked = sorted(ctx.successors(point), key=lambda m: (-ctx.prior(point, m), m))
            options = [m for m in ranked if tried[(point.key, m)] < limit]
            moved: Attempt | None = None
            for method in options[: self.attempts]:
                tried[(point.key, method)] += 1
                attempt = yield from _graph_step(ctx, point, method, "greedy")
                spent = True
                if attempt.correct:
                    moved = attempt
                    break
            if moved is None:
                # nothing new worked from here: go down the best step already taken from here, so that a
                # restart explores below it
                moved = _best_child(ctx, point)
                if moved is None:
                    break
            point = ctx.point(moved)
        return spent


def _best_child(ctx: SearchContext, point: Point) -> Attempt | None:
    children = [
        a
        for a in ctx.result.attempts
        if a.parent == point.attempt
        and a.correct
        and a.code_sha is not None
        and tuple(a.source) == point.position
    ]
    return max(children, key=lambda a: (a.reward, -a.index), default=None)


# ---- feedback loops ---------------------------------------------------------------------------------


def feedback_of(attempt: Attempt) -> dict[str, str]:
    """The `feedback` variable of refine.j2 for an attempt."""
    if attempt.status == "correct":
        parts = []
        for name, s in sorted(attempt.speedups.items()):
            ci = ""
            if s.get("ci_low") is not None and s.get("ci_high") is not None:
                ci = f" (95% CI {s['ci_low']:.2f}-{s['ci_high']:.2f})"
            parts.append(f"speedup over {name}: {s['value']:.2f}x{ci}")
        details = "All tests pass. " + ("; ".join(parts) if parts else "Timing was not measured.")
    else:
        details = attempt.message or attempt.status
    return {
        "status": attempt.status if attempt.status in _REFINE_STATUSES else "compile_error",
        "details": details[:3000],
    }


_REFINE_STATUSES = frozenset(
    {"compile_error", "runtime_error", "timeout", "wrong_answer", "integrity_violation", "correct"}
)


@dataclass
class RefineStrategy(ParamsMixin):
    """Iterative refinement: each prompt shows the previous candidate and the evaluator's verdict."""

    name = "refine"
    needs_graph = False
    default_budget = 4

    def run(self, ctx: SearchContext) -> Steps:
        first = ctx.request("standard", _variables(ctx))
        current: Attempt | None = None
        while True:
            ctx.check_budget()
            if current is None or current.code_sha is None:
                current = yield from ctx.attempt(first, kind="single", parent=None)
                continue
            best = ctx.result.best_attempt
            base = current
            if current.correct and best is not None and best.reward > current.reward:
                base = best  # a correct regression: refine the best instead
            code = ctx.result.codes[base.code_sha]  # type: ignore[index]
            request = ctx.request("refine", _variables(ctx, code=code, feedback=feedback_of(base)))
            current = yield from ctx.attempt(request, kind="refine", parent=ctx.point(base))


@dataclass
class ContrastiveStrategy(ParamsMixin):
    """Contrastive prompting (CUDA-L1): earlier variants with their measured speedups, slowest first."""

    variants: int = 4  # variants shown per prompt: the best correct ones and the latest failure

    name = "contrastive"
    needs_graph = False
    default_budget = 4

    def run(self, ctx: SearchContext) -> Steps:
        first = ctx.request("standard", _variables(ctx))
        while True:
            ctx.check_budget()
            shown = self.pick(ctx)
            if not shown:
                yield from ctx.attempt(first, kind="single", parent=None)
                continue
            variants = [
                {
                    "code": ctx.result.codes[a.code_sha],  # type: ignore[index]
                    "status": a.status,
                    "speedup": a.speedup("serial") if a.correct else None,
                }
                for a in shown
            ]
            request = ctx.request("contrastive", _variables(ctx, variants=variants), "variants")
            yield from ctx.attempt(request, kind="contrastive", parent=None)

    def pick(self, ctx: SearchContext) -> list[Attempt]:
        with_code = [a for a in ctx.result.attempts if a.code_sha is not None]
        seen: set[str] = set()
        unique = []
        for a in reversed(with_code):  # the latest attempt for each distinct code
            if a.code_sha not in seen:
                seen.add(a.code_sha)  # type: ignore[arg-type]
                unique.append(a)
        correct = sorted((a for a in unique if a.correct), key=lambda a: (-a.reward, a.index))
        failed = [a for a in unique if not a.correct]
        chosen = correct[: max(1, self.variants - (1 if failed else 0))]
        if failed and len(chosen) < self.variants:
            chosen.append(failed[0])
        return sorted(chosen, key=lambda a: (a.reward, a.index))  # slowest (and failures) first


__all__ = [
    "ContrastiveStrategy",
    "CoTStrategy",
    "GreedyStrategy",
    "RAGStrategy",
    "RefineStrategy",
    "StandardStrategy",
    "WalkStrategy",
    "feedback_of",
    "nearest_examples",
    "trajectory_examples",
]
