"""Running a strategy over a suite: k samples per task, then the metrics.

Sample i of a task is one run of the strategy with seed `seed + i`. All runs go through
`regrapht.search.run_searches` together, so model calls are batched across tasks and samples and the
evaluator compiles in parallel while the device runs one candidate at a time. Everything lands in the
run store: running the same bench again loads finished runs and resumes the others.

`results.json` holds the configuration, one record per sample, and the metrics (overall, by
difficulty, by category, per task) with the model-call, token and GPU-second cost.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from regrapht.bench.metrics import DEFAULT_KS, Sample, TaskSamples, suite_metrics
from regrapht.graph.model import ReGraph
from regrapht.llm.types import ChatModel
from regrapht.search.budget import Budget
from regrapht.search.context import SearchContext, StepSettings
from regrapht.search.evaluate import EvalBackend
from regrapht.search.offline import OFFLINE_LABEL
from regrapht.search.record import Attempt, SearchResult
from regrapht.search.session import SearchJob, run_key, run_searches
from regrapht.search.store import SearchStore
from regrapht.search.strategy import Strategy
from regrapht.tasks import Task

SCHEMA = "regrapht.bench"
VERSION = 1
RESULTS_FILE = "results.json"
RUNS_FILE = "runs.jsonl"
REPORT_FILE = "report.html"
NOT_COMPILED = frozenset({"compile_error", "no_code", "no_recorded_step"})


def sample_record(result: SearchResult) -> dict[str, Any]:
    """What the metrics need from one run, plus where to find the rest."""
    standing = result.summary_attempt()
    best = result.best_attempt
    correct = best is not None
    tried = [a for a in result.attempts]
    record = Sample(
        correct=correct,
        compiled=standing is not None and standing.status not in NOT_COMPILED,
        speedups={k: float(v["value"]) for k, v in best.speedups.items()} if best is not None else {},
        machine=result.machine,
        generations=result.spent.generations,
        prompt_tokens=result.spent.prompt_tokens,
        completion_tokens=result.spent.completion_tokens,
        gpu_seconds=round(result.spent.gpu_seconds, 4),
        evaluations=result.spent.evaluations,
        attempts=len(tried),
        attempts_compiled=sum(1 for a in tried if a.status not in NOT_COMPILED),
        attempts_correct=sum(1 for a in tried if a.correct),
        error=result.error,
    )
    d = asdict(record)
    d.update(
        seed=result.seed,
        status=None if standing is None else standing.status,
        reward=None if best is None else best.reward,
        best_attempt=result.best,
        best_code_sha=None if best is None else best.code_sha,
        stopped=result.stopped,
        run_key=result.run_key,
    )
    return d


def bench_group(config: dict[str, Any]) -> str:
    return "bench:" + run_key(config)[:16]


def run_bench(
    tasks: Sequence[Task],
    *,
    strategy: Strategy,
    target: str,
    budget: Budget,
    samples: int,
    seed: int,
    model: ChatModel,
    model_meta: dict[str, Any],
    evals: EvalBackend,
    store: SearchStore | None = None,
    graph: ReGraph | None = None,
    graph_meta: dict[str, Any] | None = None,
    settings: StepSettings | None = None,
    ks: Sequence[int] = DEFAULT_KS,
    split: str | None = None,
    embedder: Any = None,
    on_attempt: Callable[[SearchContext, Attempt], None] | None = None,
    on_finish: Callable[[SearchResult, bool], None] | None = None,
) -> tuple[dict[str, Any], list[SearchResult]]:
    """Run the bench; returns (results.json content, every run's record)."""
    if samples < 1:
        raise ValueError(f"samples must be >= 1, got {samples}")
    settings = settings or StepSettings()
    config = {
        "split": split,
        "strategy": strategy.name,
        "params": strategy.params(),
        "model": model_meta,
        "samples": samples,
        "budget": budget.to_dict(),
        "target": target,
        "seed": seed,
        "tasks": [t.id for t in tasks],
        "graph": graph_meta,
        "settings": asdict(settings),
    }
    started = time.perf_counter()
    jobs = [SearchJob(task, seed + i) for task in tasks for i in range(samples)]
    runs = run_searches(
        jobs,
        strategy=strategy,
        target=target,
        budget=budget,
        model=model,
        model_meta=model_meta,
        evals=evals,
        graph=graph,
        graph_meta=graph_meta,
        settings=settings,
        store=store,
        group=bench_group(config),
        embedder=embedder,
        on_attempt=on_attempt,
        on_finish=on_finish,
    )
    by_task: dict[str, list[SearchResult]] = {}
    for r in runs:
        by_task.setdefault(r.task["id"], []).append(r)
    task_rows = []
    metric_tasks = []
    for task in tasks:
        records = [sample_record(r) for r in sorted(by_task.get(task.id, []), key=lambda r: r.seed)]
        task_rows.append(
            {
                "id": task.id,
                "title": task.title,
                "difficulty": task.difficulty,
                "category": task.category,
                "split": task.split,
                "samples": records,
            }
        )
        metric_tasks.append(
            TaskSamples(task.id, task.difficulty, task.category, [Sample.from_dict(r) for r in records])
        )
    usable_ks = [k for k in ks if k <= samples] or [1]
    results = {
        "schema": SCHEMA,
        "version": VERSION,
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "config": config,
        "machine": evals.machine(target),
        "offline": bool(model_meta.get("offline")),
        "label": OFFLINE_LABEL if model_meta.get("offline") else "",
        "tasks": task_rows,
        "metrics": suite_metrics(metric_tasks, usable_ks),
        "wall_s": round(time.perf_counter() - started, 3),
    }
    return results, runs


def write_bench(out: str | Path, results: dict[str, Any], runs: Sequence[SearchResult]) -> dict[str, Path]:
    """Write results.json, runs.jsonl (every run's full record) and report.html into `out`."""
    from regrapht.bench.report import render_bench

    d = Path(out)
    d.mkdir(parents=True, exist_ok=True)
    paths = {"results": d / RESULTS_FILE, "runs": d / RUNS_FILE, "report": d / REPORT_FILE}
    paths["results"].write_text(json.dumps(results, indent=1, default=float) + "\n", encoding="utf-8")
    with paths["runs"].open("w", encoding="utf-8") as f:
        for r in runs:
            f.write(json.dumps(r.to_dict(), default=float) + "\n")
    paths["report"].write_text(render_bench(results), encoding="utf-8")
    return paths


def load_results(path: str | Path) -> dict[str, Any]:
    """results.json of a bench directory (or the file itself)."""
    p = Path(path)
    if p.is_dir():
        p = p / RESULTS_FILE
    data = json.loads(p.read_text(encoding="utf-8"))
    if data.get("schema") != SCHEMA:
        raise ValueError(f"{p} is not a regrapht bench result (schema {data.get('schema')!r})")
    return data
