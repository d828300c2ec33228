"""A bench over a fixed candidate set: every candidate file judged once on its task, with the suite
metrics of a strategy bench (one sample per candidate).

This is how torch tasks are benched: no search strategy has anything for a PyTorch `Model` (the
strategies' prompts and the Reasoning Graph's recorded steps are all serial C++), so what a bench
over torch tasks can measure honestly is a given set of `ModelNew` candidates (a model's outputs, a
team's kernels, the examples' own `candidates/`) against eager PyTorch and torch.compile.

Candidates are found per task as `DIR/<task id>.py` (or `.cu`, a bare CUDA source with a declared
entry point) and every `.py`/`.cu` file in `DIR/<task id>/`; without a folder, a task folder's own
`candidates/` is used. results.json has the same schema as a strategy bench, so `regrapht report`
renders and compares it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import asdict
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from regrapht.bench.metrics import DEFAULT_KS, Sample, TaskSamples, suite_metrics

SCHEMA = "regrapht.bench"
VERSION = 1
STRATEGY = "candidates"
SUFFIXES = (".py", ".cu")
# Verdicts that mean the candidate never got as far as running (the metrics' "compiled" rate).
NOT_COMPILED = frozenset({"compile_error"})


class CandidateSetError(ValueError):
    """The candidate folder is unusable or matches no task; the message says what was looked for."""


def find_candidates(tasks: Sequence[Any], folder: Path | None) -> dict[str, list[Path]]:
    """Candidate files per task id (sorted, so a rerun judges them in the same order); tasks with
    none are left out. Files in `folder` that belong to no task are an error: a typo in a name must
    not silently drop a candidate."""
    found: dict[str, list[Path]] = {}
    if folder is None:
        for task in tasks:
            own = Path(task.root) / "candidates"
            files = sorted(p for p in own.glob("*") if p.suffix in SUFFIXES and p.is_file()) if own.is_dir() else []
            if files:
                found[task.id] = files
        return found
    if not folder.is_dir():
        raise CandidateSetError(f"--candidates {folder}: no such folder")
    ids = {t.id for t in tasks}
    strays = []
    for entry in sorted(folder.iterdir()):
        if entry.is_file() and entry.suffix in SUFFIXES:
            if entry.stem in ids:
                found.setdefault(entry.stem, []).append(entry)
            else:
                strays.append(entry.name)
        elif entry.is_dir():
            files = sorted(p for p in entry.iterdir() if p.is_file() and p.suffix in SUFFIXES)
            if entry.name in ids:
                found.setdefault(entry.name, []).extend(files)
            elif files:
                strays.append(entry.name + "/")
    if strays:
        raise CandidateSetError(
            f"--candidates {folder}: {', '.join(strays)} name(s) no selected task (a candidate is "
            f"<task id>.py, <task id>.cu or a file in <task id>/; selected: {', '.join(sorted(ids))})"
        )
    # a task's folder with no candidate file in it is a task without candidates (listed as missing)
    return {k: sorted(v) for k, v in found.items() if v}


def _sample(path: Path, ev: Any) -> dict[str, Any]:
    correct = ev.status == "correct"
    record = Sample(
        correct=correct,
        compiled=ev.status not in NOT_COMPILED,
        speedups={k: float(v["value"]) for k, v in ev.speedups.items()} if correct else {},
        machine=str(ev.fingerprint.get("gpu") or ev.fingerprint.get("cpu") or ""),
        gpu_seconds=round(float(ev.seconds.get("total", 0.0)), 4),
        evaluations=1,
        attempts=1,
        attempts_compiled=int(ev.status not in NOT_COMPILED),
        attempts_correct=int(correct),
    )
    d = asdict(record)
    d.update(
        candidate=str(path),
        status=ev.status,
        message=ev.message[:600],
        reward=ev.reward,
        speedup_intervals={k: [v.get("ci_low"), v.get("ci_high")] for k, v in ev.speedups.items()},
        integrity=list(ev.integrity),
    )
    return d


def run_candidate_bench(
    tasks: Sequence[Any],
    candidates: dict[str, list[Path]],
    evaluate_many: Callable[[list[tuple[Any, str, str]]], list[Any]],
    *,
    target: str,
    source: str,
    split: str | None,
    baselines: Sequence[str],
    ks: Sequence[int] = DEFAULT_KS,
) -> dict[str, Any]:
    """Judge every candidate in one batch (builds overlap device turns) and return results.json's
    content. `evaluate_many` is an evaluator's: (task, source, target) items to Evaluations."""
    chosen = [t for t in tasks if t.id in candidates]
    items = [(t, p) for t in chosen for p in candidates[t.id]]
    if not items:
        raise CandidateSetError(f"no candidate for any of the {len(tasks)} selected task(s) in {source}")
    started = time.perf_counter()
    texts = []
    for _, path in items:
        try:
            texts.append(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError) as exc:
            raise CandidateSetError(f"{path}: cannot be read as UTF-8 text ({exc})") from None
    evaluations = evaluate_many([(t, text, target) for (t, _), text in zip(items, texts)])
    by_task: dict[str, list[dict[str, Any]]] = {}
    for (task, path), ev in zip(items, evaluations):
        by_task.setdefault(task.id, []).append(_sample(path, ev))
    rows, metric_tasks = [], []
    for task in chosen:
        records = by_task[task.id]
        rows.append({"id": task.id, "title": task.title, "difficulty": task.difficulty, "category": task.category,
                     "split": task.split, "samples": records})  # fmt: skip
        metric_tasks.append(TaskSamples(task.id, task.difficulty, task.category, [Sample.from_dict(r) for r in records]))
    counts = [len(v) for v in candidates.values() if v]
    usable_ks = [k for k in ks if k <= min(counts)] or [1]
    machine = next((s["machine"] for r in rows for s in r["samples"] if s["machine"]), "")
    return {
        "schema": SCHEMA,
        "version": VERSION,
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "config": {
            "split": split,
            "strategy": STRATEGY,
            "params": {},
            "model": {"identity": f"candidates:{source}", "offline": False},
            "samples": max(counts),
            "budget": {"generations": 0, "gpu_seconds": None, "tokens": None},
            "target": target,
            "seed": 0,
            "tasks": [t.id for t in chosen],
            "graph": None,
            "settings": {},
            "baselines": list(baselines),
        },
        "machine": {"device": machine},
        "offline": False,
        "label": "",
        "tasks": rows,
        # Tasks of the selection that had no candidate: named, not counted as failures.
        "missing": sorted(t.id for t in tasks if t.id not in candidates),
        "metrics": suite_metrics(metric_tasks, usable_ks, list(baselines)),
        "wall_s": round(time.perf_counter() - started, 3),
    }


def write_candidate_bench(out: str | Path, results: dict[str, Any]) -> dict[str, Path]:
    """results.json and report.html in `out` (no runs.jsonl: there were no searches)."""
    import json

    from regrapht.bench.report import render_bench
    from regrapht.bench.runner import REPORT_FILE, RESULTS_FILE

    d = Path(out)
    d.mkdir(parents=True, exist_ok=True)
    paths = {"results": d / RESULTS_FILE, "report": d / REPORT_FILE}
    paths["results"].write_text(json.dumps(results, indent=1, default=float) + "\n", encoding="utf-8")
    paths["report"].write_text(render_bench(results), encoding="utf-8")
    return paths
