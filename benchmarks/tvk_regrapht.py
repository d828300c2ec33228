"""regrapht's side of the regrapht-vs-KernelBench comparison: the torch task kind judged through the
Python API (a task folder loaded with `regrapht.tasks.find_task`, judged with `Evaluator.evaluate_many`,
one batch per task, so the evaluator can overlap a candidate's build with another's run), falling
back to the CLI (`regrapht eval TASK_DIR CANDIDATE --target cuda --json`) where the API cannot.

Until the torch task kind is merged, neither can load a torch task folder; `RegraphtUnavailable`
then says so, with what each attempt answered, instead of producing numbers.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

# Names under which the eager-PyTorch baseline's speedup may appear in Evaluation.speedups, most
# specific first; anything else with "eager" in it (and no graph or compile) is taken as a last resort.
EAGER_KEYS = ("eager", "torch_eager", "pytorch_eager", "reference_eager")
HOST = " on the host"  # marks a worker run with no CUDA context (watch_workers)


class RegraphtUnavailable(RuntimeError):
    """regrapht cannot judge torch tasks here (not merged yet, or broken); the message says why."""


def eager_speedup(speedups: dict) -> tuple[str, float] | None:
    """The (key, value) of the speedup over eager PyTorch, if the record has one."""
    for key in EAGER_KEYS:
        if key in speedups:
            return key, float(speedups[key]["value"])
    for key, entry in speedups.items():
        low = key.lower()
        if "eager" in low and "graph" not in low and "compile" not in low:
            return key, float(entry["value"])
    return None


def row_from_evaluation(ev: dict) -> dict:
    """The comparison's row for one regrapht evaluation record (Evaluation.to_dict() or the CLI's JSON)."""
    speedups = ev.get("speedups") or {}
    eager = eager_speedup(speedups)
    cand = (ev.get("timings") or {}).get("candidate") or {}
    return {
        "verdict": ev.get("status"),
        "message": (ev.get("message") or "")[:600],
        "integrity": ev.get("integrity") or [],
        "speedups": {k: v.get("value") for k, v in speedups.items() if isinstance(v, dict)},
        "eager_key": eager[0] if eager else None,
        "speedup_vs_eager": eager[1] if eager else None,
        "candidate_median_ms": cand["median_s"] * 1e3 if "median_s" in cand else None,
        "regrapht_seconds": ev.get("seconds") or {},
    }


def watch_workers(judge: object) -> list[tuple[str, float, float]]:
    """(mode, start, end) of every worker process the torch judge runs from now on, appended as each
    ends: a reference or candidate worker holds the GPU from its job's hand-off (a spare already
    started, torch imported, no CUDA context) to its end. This is what regrapht's device turns cost
    the GPU, counted as benchmarks/eval_throughput.py counts the serial-C++ path's workers; the
    parent's work between them (copying cases, judging outputs) and the CPU pool's builds hold no
    GPU. A cuda task's reference computed on the host (eval/torch_judge.py, _host_reference) holds no
    CUDA context: its mode is marked HOST. A judge without `_run` (a test's stand-in) is left alone
    and the list stays empty."""
    held: list[tuple[str, float, float]] = []
    original = getattr(judge, "_run", None)
    if original is None:
        return held

    def timed(job: dict, *rest: object, **kw: object) -> object:
        began = time.monotonic()
        try:
            return original(job, *rest, **kw)
        finally:
            mode = str(job.get("mode")) + ("" if job.get("target") == "cuda" else HOST)
            held.append((mode, began, time.monotonic()))

    judge._run = timed  # type: ignore[attr-defined]
    return held


def _load_task(task_dir: Path):
    try:
        from regrapht.tasks import find_task
    except ImportError as exc:
        raise RegraphtUnavailable(f"cannot import regrapht (run with PYTHONPATH=src from the repository root): {exc}") from None
    try:
        task = find_task(str(task_dir))
    except Exception as exc:  # TaskError, or the serial loader choking on a torch task.toml
        raise RegraphtUnavailable(
            f"regrapht.tasks.find_task({str(task_dir)!r}) failed: {type(exc).__name__}: {exc}. "
            "The torch task kind (issue 17) is probably not merged into this checkout yet."
        ) from None
    if getattr(task, "kind", None) != "torch" and "torch" not in type(task).__name__.lower():
        raise RegraphtUnavailable(
            f"find_task({str(task_dir)!r}) returned a {type(task).__name__}, not a torch task: the torch task kind "
            "is not merged into this checkout yet"
        )
    return task


@dataclass
class RegraphtHarness:
    target: str = "cuda"
    mode: str = "api"  # "api", or "cli" once the API has failed
    cache_dir: str | None = None  # None: a fresh build cache for this harness (cold compiles)
    # Baselines timed beside each candidate. Eager alone by default: KernelBench times the candidate
    # alone, so torch.compile's per-worker compile would be work only one side does.
    baselines: tuple[str, ...] = ("eager",)
    jobs: int | None = None  # the CPU build pool's builds at once (None: the evaluator's default, from all cores)
    notes: list[str] = field(default_factory=list)
    _evaluator: object = None
    _cache: tempfile.TemporaryDirectory | None = None

    def __enter__(self) -> RegraphtHarness:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._evaluator is not None:
            self._evaluator.close()
        if self._cache is not None:
            self._cache.cleanup()

    def _api_evaluator(self):
        if self._evaluator is None:
            from regrapht.eval import EvalConfig, Evaluator

            # By default a fresh build cache: every candidate compiles cold, as each does under KernelBench.
            if self.cache_dir is None:
                self._cache = tempfile.TemporaryDirectory(prefix="tvk-regrapht-")
            cache = self.cache_dir or self._cache.name
            self._evaluator = Evaluator(EvalConfig(cache_dir=cache, torch_baselines=self.baselines, jobs=self.jobs))
        return self._evaluator

    def prebuild(self, candidates: list[Path]) -> int:
        """Start every candidate's extension build on the evaluator's CPU pool (the torch judge reads
        the load_inline calls from the text; eval/torch_prebuild.py); how many builds started. Later
        batches find them built, so their device turns hold no compile."""
        if self.mode != "api":
            return 0
        judge = self._api_evaluator().torch_judge()
        return sum(len(judge.prebuild(path.read_text(), self.target, path.name)) for path in candidates)

    def evaluate_batch(self, items: list[tuple[str, Path, Path]]) -> tuple[dict[str, dict], float, float]:
        """Rows for (key, task_dir, candidate) items of any tasks in one evaluate_many batch, its wall
        seconds, and the seconds of device turns in it (each evaluation's own total: its reference and
        candidate workers; the batch starts a candidate only once its builds are done)."""
        tasks = {task_dir: _load_task(task_dir) for _, task_dir, _ in items}
        evaluator = self._api_evaluator()
        start = time.perf_counter()
        results = evaluator.evaluate_many([(tasks[d], path.read_text(), self.target) for _, d, path in items])
        wall = time.perf_counter() - start
        rows, device = {}, 0.0
        for (key, _, _), ev in zip(items, results):
            rows[key] = row_from_evaluation(ev.to_dict())
            rows[key]["seconds"] = float(ev.seconds.get("total", 0.0))
            device += rows[key]["seconds"]
        return rows, wall, device

    def evaluate_task(self, task_dir: Path, candidates: list[tuple[str, Path]]) -> tuple[dict[str, dict], float]:
        """Rows for one task's candidates and the wall seconds the batch took."""
        if self.mode == "api":
            try:
                task = _load_task(task_dir)
            except RegraphtUnavailable as exc:
                self.notes.append(f"Python API: {exc}; trying the CLI")
                self.mode = "cli"
            else:
                evaluator = self._api_evaluator()
                items = [(task, path.read_text(), self.target) for _, path in candidates]
                start = time.perf_counter()
                results = evaluator.evaluate_many(items)
                wall = time.perf_counter() - start
                rows = {}
                for (key, _), ev in zip(candidates, results):
                    rows[key] = row_from_evaluation(ev.to_dict())
                    rows[key]["seconds"] = wall / len(candidates)  # a batch: its wall shared evenly
                return rows, wall
        return self._evaluate_cli(task_dir, candidates)

    def _evaluate_cli(self, task_dir: Path, candidates: list[tuple[str, Path]]) -> tuple[dict[str, dict], float]:
        rows, total = {}, 0.0
        for key, path in candidates:
            cmd = [sys.executable, "-m", "regrapht.cli", "eval", str(task_dir), str(path), "--target", self.target, "--json"]
            start = time.perf_counter()
            proc = subprocess.run(cmd, capture_output=True, text=True)
            wall = time.perf_counter() - start
            total += wall
            if proc.returncode == 2:  # the task or the tools are at fault: no verdict
                raise RegraphtUnavailable(
                    f"`regrapht eval {task_dir} {path.name} --target {self.target} --json` exited 2: "
                    f"{(proc.stderr or proc.stdout).strip()[-600:]}"
                )
            try:
                ev = json.loads(proc.stdout)
            except json.JSONDecodeError:
                raise RegraphtUnavailable(
                    f"`regrapht eval` printed no JSON record for {key} (exit {proc.returncode}): {proc.stderr.strip()[-600:]}"
                ) from None
            rows[key] = row_from_evaluation(ev)
            rows[key]["seconds"] = wall
        return rows, total
