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

import hashlib
import json
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


JOURNAL_FILE = "samples.jsonl"


def sample_key(task: Any, text: str, target: str, baselines: Sequence[str], settings: str) -> str:
    """What a kept sample stands for: the task definition, the candidate's exact text, the target,
    the baselines and the evaluator settings. Any of them changed, and the candidate is judged anew."""
    h = hashlib.sha256()
    for part in (task.id, task.content_hash(), text, target, ",".join(baselines), settings):
        h.update(part.encode("utf-8", "surrogatepass") + b"\0")
    return h.hexdigest()


def read_journal(path: Path) -> dict[str, dict[str, Any]]:
    """Samples kept by an earlier run of the same bench, by key. A line cut by a crash mid-write (or
    edited by hand into something else) is skipped: that candidate is judged again."""
    kept: dict[str, dict[str, Any]] = {}
    if not path.is_file():
        return kept
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict) and isinstance(entry.get("key"), str) and isinstance(entry.get("sample"), dict):
            kept[entry["key"]] = entry["sample"]
    return kept


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
    journal: Path | None = None,
    settings: str = "",
    chunk: int = 4,
    on_progress: Callable[[int, int, list[tuple[str, dict[str, Any]]]], None] | None = None,
) -> dict[str, Any]:
    """Judge every candidate and return results.json's content. `evaluate_many` is an evaluator's:
    (task, source, target) items to Evaluations; it gets `chunk` items at a time (a chunk's builds
    overlap its device turns; a pool spreads a chunk over its lanes).

    With a `journal` (samples.jsonl), each chunk's samples are appended as soon as they are judged and
    a rerun keeps every sample whose key (`sample_key`: task, text, target, baselines, `settings`)
    is there: an interrupted bench resumes where it stopped. `on_progress(done, total, new)` is called
    after the kept samples are counted and after each chunk, `new` being (task id, sample) pairs."""
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
    # The n-th candidate of a task with the same text as an earlier one is a sample of its own: k
    # identical samples (a model at low temperature) are k measurements, and one judged does not
    # stand in for its twin that a crash left unjudged.
    seen: dict[str, int] = {}
    keys = []
    for (t, _), text in zip(items, texts):
        base = sample_key(t, text, target, baselines, settings)
        seen[base] = seen.get(base, 0) + 1
        keys.append(base if seen[base] == 1 else f"{base}#{seen[base]}")
    kept = read_journal(journal) if journal is not None else {}
    samples: dict[int, dict[str, Any]] = {}
    for i, ((_, path), key) in enumerate(zip(items, keys)):
        if key in kept:
            samples[i] = {**kept[key], "candidate": str(path)}
    todo = [i for i in range(len(items)) if i not in samples]
    if on_progress is not None:
        on_progress(len(samples), len(items), [])
    for start in range(0, len(todo), max(1, chunk)):
        part = todo[start : start + max(1, chunk)]
        evaluations = evaluate_many([(items[i][0], texts[i], target) for i in part])
        new = []
        for i, ev in zip(part, evaluations):
            samples[i] = _sample(items[i][1], ev)
            new.append((items[i][0].id, samples[i]))
        if journal is not None:
            journal.parent.mkdir(parents=True, exist_ok=True)
            lines = "".join(json.dumps({"key": keys[i], "task": items[i][0].id, "sample": samples[i]}, default=float) + "\n"
                            for i in part)  # fmt: skip
            with journal.open("a+b") as fh:
                # a line cut by a crash mid-write must not swallow the first of these
                cut = fh.tell() > 0 and (fh.seek(-1, 2), fh.read(1))[1] != b"\n"
                fh.write((b"\n" if cut else b"") + lines.encode("utf-8"))
        if on_progress is not None:
            on_progress(len(samples), len(items), new)
    by_task: dict[str, list[dict[str, Any]]] = {}
    for i, (task, _) in enumerate(items):
        by_task.setdefault(task.id, []).append(samples[i])
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
        # kept: samples taken from an earlier run's journal (the wall is this run's only)
        "resumed": len(items) - len(todo),
        "wall_s": round(time.perf_counter() - started, 3),
    }


def write_candidate_bench(out: str | Path, results: dict[str, Any]) -> dict[str, Path]:
    """results.json and report.html in `out` (no runs.jsonl: there were no searches; the samples'
    journal, samples.jsonl, is written as they are judged)."""
    from regrapht.bench.report import render_bench
    from regrapht.bench.runner import REPORT_FILE, RESULTS_FILE

    d = Path(out)
    d.mkdir(parents=True, exist_ok=True)
    paths = {"results": d / RESULTS_FILE, "report": d / REPORT_FILE}
    paths["results"].write_text(json.dumps(results, indent=1, default=float) + "\n", encoding="utf-8")
    paths["report"].write_text(render_bench(results), encoding="utf-8")
    return paths
