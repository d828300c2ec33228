"""Searches end to end: open the model (or the offline policy), run strategies on tasks, resume.

`run_searches` runs one strategy on a list of (task, seed) jobs with one model and one evaluation
backend. With a run store, each finished run is saved under a key of everything that determines it
(task content, target, strategy and parameters, model identity, seed, budget, graph content, step
settings, evaluator configuration, machine); running the same jobs again loads finished runs and
replays unfinished ones from the call cache and the stored evaluations, then goes on where they
stopped.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import regrapht
from regrapht.graph.model import ReGraph
from regrapht.llm.types import ChatModel
from regrapht.search.budget import Budget
from regrapht.search.context import ModelInfo, SearchContext, StepSettings
from regrapht.search.driver import Run, drive
from regrapht.search.evaluate import EvalBackend, EvalService
from regrapht.search.offline import OFFLINE_LABEL, OfflinePolicy, graph_digest, is_offline_spec
from regrapht.search.record import Attempt, SearchResult
from regrapht.search.store import SearchStore
from regrapht.search.strategy import Strategy
from regrapht.store import RunStore
from regrapht.tasks import Task

# Part of every run key: bump it when a strategy's behaviour changes, so stored runs of the old
# behaviour are not loaded as finished (their model calls and evaluations are still reused).
SEARCH_VERSION = 5


@dataclass(frozen=True)
class SearchJob:
    task: Task
    seed: int


def graph_info(graph: ReGraph, path: str | Path | None = None, digest: str | None = None) -> dict[str, Any]:
    return {
        "path": None if path is None else str(path),
        "sha256": digest or graph_digest(graph),
        "target": graph.target,
        "nodes": len(graph.nodes),
        "edges": len(graph.edges),
        "examples": sum(len(e.examples) for e in graph.edges.values()),
    }


def open_search_model(
    spec: str, *, graph: ReGraph | None = None, store: RunStore | None = None
) -> tuple[ChatModel, dict[str, Any]]:
    """The model a spec names, and how runs record it. `offline` (or `offline:GRAPH.json`) is the
    offline policy over the search graph (or that graph file); anything else goes to
    `regrapht.llm.open_model`, through the call cache of `store` when one is given."""
    if is_offline_spec(spec):
        rest = spec.strip()[len("offline") :].lstrip(":").strip()
        if rest:
            from regrapht.graph.store import load_graph

            policy_graph = load_graph(rest)
        elif graph is not None:
            policy_graph = graph
        else:
            raise ValueError("the offline policy replays a graph's recorded steps: give a graph (--graph)")
        policy = OfflinePolicy(policy_graph)
        return policy, {"identity": policy.identity, "offline": True, "label": OFFLINE_LABEL, "spec": spec}
    from regrapht.llm.factory import open_model

    model = open_model(spec, cache=store)
    return model, {"identity": model.identity, "offline": False, "label": "", "spec": spec}


def run_key(payload: dict[str, Any]) -> str:
    blob = json.dumps(payload, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(blob.encode()).hexdigest()


def run_searches(
    jobs: Sequence[SearchJob],
    *,
    strategy: Strategy,
    target: str,
    budget: Budget,
    model: ChatModel,
    model_meta: dict[str, Any],
    evals: EvalBackend,
    graph: ReGraph | None = None,
    graph_meta: dict[str, Any] | None = None,
    settings: StepSettings | None = None,
    store: SearchStore | None = None,
    group: str = "",
    embedder: Any = None,
    on_attempt: Callable[[SearchContext, Attempt], None] | None = None,
    on_finish: Callable[[SearchResult, bool], None] | None = None,
) -> list[SearchResult]:
    """Run `strategy` on every job; results in job order. `on_finish(result, resumed)` is called as
    each run ends (resumed: loaded finished from the store)."""
    if strategy.needs_graph and graph is None:
        raise ValueError(f"strategy {strategy.name} needs a graph")
    from regrapht.search.task_kinds import refusal

    refused = next((r for r in (refusal(job.task) for job in jobs) if r), None)
    if refused:
        raise ValueError(refused)
    settings = settings or StepSettings()
    if graph is not None and graph_meta is None:
        graph_meta = graph_info(graph)
    info = ModelInfo.of(model)
    cfg_hash = getattr(evals, "config_hash", "")
    results: list[SearchResult | None] = [None] * len(jobs)
    runs: list[Run] = []
    index_of: dict[int, int] = {}
    for i, job in enumerate(jobs):
        key = run_key(
            {
                "search_version": SEARCH_VERSION,
                "regrapht": regrapht.__version__,
                "task": job.task.id,
                "task_hash": job.task.content_hash(),
                "target": target,
                "strategy": strategy.name,
                "params": strategy.params(),
                "model": model_meta.get("identity"),
                "seed": job.seed,
                "budget": budget.to_dict(),
                "graph": None if graph_meta is None else graph_meta.get("sha256"),
                "settings": asdict(settings),
                "eval_config": cfg_hash,
                "machine": evals.machine(target),
            }
        )
        done = store.finished_run(key) if store is not None else None
        if done is not None:
            results[i] = SearchResult.from_dict(done)
            if on_finish is not None:
                on_finish(results[i], True)  # type: ignore[arg-type]
            continue
        ctx = SearchContext(
            job.task,
            target,
            strategy=strategy.name,
            params=strategy.params(),
            budget=budget,
            seed=job.seed,
            model=model_meta,
            model_info=info,
            graph=graph,
            graph_info=graph_meta,
            settings=settings,
            machine=evals.machine(target),
            embedder=embedder,
            on_attempt=on_attempt,
        )
        ctx.result.run_key = key
        if store is not None:
            store.start_run(
                key,
                task_id=job.task.id,
                strategy=strategy.name,
                model=str(model_meta.get("identity")),
                seed=job.seed,
                group=group,
            )
        index_of[id(ctx)] = i
        runs.append(Run(ctx, strategy.run(ctx)))

    def finished(run: Run) -> None:
        result = run.ctx.result
        results[index_of[id(run.ctx)]] = result
        if store is not None:
            store.finish_run(result.run_key, result.to_dict())
        if on_finish is not None:
            on_finish(result, False)

    if runs:
        drive(runs, model, evals, finished)
    return [r for r in results if r is not None]


def evaluation_records(result: SearchResult, evals: EvalBackend) -> dict[str, dict[str, Any]]:
    """Full evaluation records of a run's attempts, by evaluation key (from the service's cache)."""
    out: dict[str, dict[str, Any]] = {}
    if not isinstance(evals, EvalService):
        return out
    for a in result.attempts:
        if a.eval_key and a.eval_key not in out:
            ev = evals.lookup(a.eval_key)
            if ev is not None:
                out[a.eval_key] = ev.to_dict()
    return out
