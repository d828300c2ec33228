"""Suite metrics: pass@k, speedup@k, speedup_max@k, fast_p, geometric-mean speedup, rates, cost.

Definitions (n samples of a task, c of them correct):

- **pass@k** (Chen et al. 2021, unbiased): 1 - C(n-c, k) / C(n, k), the chance that at least one of
  k samples drawn without replacement from the n is correct; averaged over tasks. Needs n >= k.
- **speedup@k** (ParEval's speedup_n@k): the expected best speedup among k samples drawn without
  replacement from the n. With the n per-sample speedups sorted ascending, s_(1) <= ... <= s_(n),

      speedup@k = sum_{j=k..n} C(j-1, k-1) / C(n, k) * s_(j),

  since s_(j) is the best of a k-subset exactly when the other k-1 come from the j-1 below it.
  A sample that is not correct has speedup 0 (it cannot be used). Averaged over tasks.
  (ParEval's released analysis script computes this over the correct samples only; pass
  `correct_only=True` for that variant.)
- **speedup_max@k** (ParEval): per task, the maximum of speedup_n@k over the resource
  configurations the samples were measured on (ParEval: thread or process counts). regrapht measures
  each run on one configuration (one GPU, or the machine's CPU cores), keyed by the evaluation's
  machine, so on one run it equals speedup@k; it differs only when samples of a task come from
  several configurations.
- **fast_p** (KernelBench): the share of samples that are correct and more than p times faster than
  the baseline (fast_0 is the correctness rate); averaged over tasks.
- **geometric-mean speedup** over the correct samples of the suite.
- **compile and correctness rates**: per sample (the sample's standing attempt compiled / is correct)
  and per attempt (every generation of every sample).

Speedups are taken against each baseline the evaluator measured (serial, and naive on cuda).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

DEFAULT_KS = (1, 5, 10)
FAST_PS = (0.0, 1.0, 1.5, 2.0)


def pass_at_k(n: int, c: int, k: int) -> float | None:
    """Unbiased pass@k of one task; None when fewer than k samples exist."""
    if not 0 <= c <= n:
        raise ValueError(f"need 0 <= c <= n, got c={c}, n={n}")
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    if n < k:
        return None
    if n - c < k:
        return 1.0
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def expected_max_at_k(values: Sequence[float], k: int) -> float | None:
    """E[max of a uniformly random k-subset of `values`]; None when fewer than k values."""
    n = len(values)
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    if n < k:
        return None
    s = sorted(values)
    total = Fraction(0)
    for j in range(k, n + 1):
        total += Fraction(math.comb(j - 1, k - 1)) * Fraction(s[j - 1])
    return float(total / math.comb(n, k))


def speedup_at_k(speedups: Sequence[float | None], k: int, correct_only: bool = False) -> float | None:
    """ParEval speedup_n@k of one task; `speedups[i]` is None for a sample that is not correct.
    `correct_only`: over the correct samples only (the best of them when fewer than k are correct;
    0 when none is)."""
    if correct_only:
        kept = [float(s) for s in speedups if s is not None]
        if not kept:
            return 0.0 if len(speedups) >= k else None
        return expected_max_at_k(kept, min(k, len(kept)))
    return expected_max_at_k([0.0 if s is None else float(s) for s in speedups], k)


def speedup_max_at_k(by_config: dict[str, Sequence[float | None]], k: int) -> float | None:
    """ParEval speedup_max@k of one task: the best speedup_n@k over resource configurations."""
    values = [v for v in (speedup_at_k(s, k) for s in by_config.values()) if v is not None]
    return max(values) if values else None


def fast_p(samples: Sequence[tuple[bool, float | None]], p: float) -> float | None:
    """KernelBench fast_p of one task: share of (correct, speedup) samples correct and faster than p."""
    if not samples:
        return None
    hits = sum(1 for ok, s in samples if ok and (p <= 0 or (s is not None and s > p)))
    return hits / len(samples)


def geomean(values: Iterable[float]) -> float | None:
    vals = [v for v in values if v is not None and v > 0]
    if not vals:
        return None
    return math.exp(sum(math.log(v) for v in vals) / len(vals))


def _mean(values: Iterable[float | None]) -> float | None:
    vals = [v for v in values if v is not None]
    return sum(vals) / len(vals) if vals else None


@dataclass
class Sample:
    """One run of a strategy on a task, as the metrics see it."""

    correct: bool
    compiled: bool
    speedups: dict[str, float] = field(default_factory=dict)  # baseline -> value, correct samples only
    machine: str = ""
    generations: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    gpu_seconds: float = 0.0
    evaluations: int = 0
    attempts: int = 0
    attempts_compiled: int = 0
    attempts_correct: int = 0
    error: str | None = None

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Sample:
        known = {k: d[k] for k in cls.__dataclass_fields__ if k in d}
        return cls(**known)


@dataclass
class TaskSamples:
    id: str
    difficulty: str
    category: str
    samples: list[Sample]

    @property
    def usable(self) -> list[Sample]:
        """Samples that ran (a task error is the task's fault, not the strategy's)."""
        return [s for s in self.samples if s.error is None]


def task_metrics(task: TaskSamples, ks: Sequence[int], baselines: Sequence[str]) -> dict[str, Any]:
    samples = task.usable
    n, c = len(samples), sum(s.correct for s in samples)
    out: dict[str, Any] = {
        "n": n,
        "correct": c,
        "compiled": sum(s.compiled for s in samples),
        "pass@k": {str(k): pass_at_k(n, c, k) for k in ks},
        "speedup": {},
    }
    for b in baselines:
        values = [s.speedups.get(b) if s.correct else None for s in samples]
        by_config: dict[str, list[float | None]] = {}
        for s, v in zip(samples, values):
            by_config.setdefault(s.machine, []).append(v)
        out["speedup"][b] = {
            "speedup@k": {str(k): speedup_at_k(values, k) for k in ks},
            "speedup_max@k": {str(k): speedup_max_at_k(by_config, k) for k in ks},
            "fast_p": {_p(p): fast_p([(s.correct, s.speedups.get(b)) for s in samples], p) for p in FAST_PS},
            "best": max((v for v in values if v is not None), default=None),
        }
    return out


def _p(p: float) -> str:
    return f"{p:g}"


def aggregate(tasks: Sequence[TaskSamples], ks: Sequence[int], baselines: Sequence[str]) -> dict[str, Any]:
    """The metrics of a set of tasks: per-task values averaged over tasks, rates and costs."""
    per = {t.id: task_metrics(t, ks, baselines) for t in tasks}
    samples = [s for t in tasks for s in t.usable]
    errors = [s for t in tasks for s in t.samples if s.error is not None]
    attempts = sum(s.attempts for s in samples)
    out: dict[str, Any] = {
        "tasks": len(tasks),
        "samples": len(samples),
        "task_errors": len(errors),
        "pass@k": {str(k): _mean(per[t.id]["pass@k"][str(k)] for t in tasks) for k in ks},
        "compile_rate": _rate(sum(s.compiled for s in samples), len(samples)),
        "correct_rate": _rate(sum(s.correct for s in samples), len(samples)),
        "attempt_compile_rate": _rate(sum(s.attempts_compiled for s in samples), attempts),
        "attempt_correct_rate": _rate(sum(s.attempts_correct for s in samples), attempts),
        "speedup": {},
        "cost": {
            "generations": sum(s.generations for s in samples),
            "prompt_tokens": sum(s.prompt_tokens for s in samples),
            "completion_tokens": sum(s.completion_tokens for s in samples),
            "tokens": sum(s.prompt_tokens + s.completion_tokens for s in samples),
            "gpu_seconds": round(sum(s.gpu_seconds for s in samples), 4),
            "evaluations": sum(s.evaluations for s in samples),
            "attempts": attempts,
        },
    }
    for b in baselines:
        correct_values = [s.speedups[b] for s in samples if s.correct and b in s.speedups]
        out["speedup"][b] = {
            "speedup@k": {
                str(k): _mean(per[t.id]["speedup"][b]["speedup@k"][str(k)] for t in tasks) for k in ks
            },
            "speedup_max@k": {
                str(k): _mean(per[t.id]["speedup"][b]["speedup_max@k"][str(k)] for t in tasks) for k in ks
            },
            "fast_p": {
                _p(p): _mean(per[t.id]["speedup"][b]["fast_p"][_p(p)] for t in tasks) for p in FAST_PS
            },
            "geomean_correct": geomean(correct_values),
            "n_correct": len(correct_values),
        }
    return out


def _rate(num: int, den: int) -> float | None:
    return num / den if den else None


def suite_metrics(
    tasks: Sequence[TaskSamples], ks: Sequence[int] = DEFAULT_KS, baselines: Sequence[str] | None = None
) -> dict[str, Any]:
    """Overall metrics plus the same broken down by difficulty and by category, and per task."""
    if baselines is None:
        found = {b for t in tasks for s in t.samples for b in s.speedups}
        baselines = sorted(found, key=lambda b: (b != "serial", b))
    by_difficulty: dict[str, list[TaskSamples]] = {}
    by_category: dict[str, list[TaskSamples]] = {}
    for t in tasks:
        by_difficulty.setdefault(t.difficulty, []).append(t)
        by_category.setdefault(t.category, []).append(t)
    order = {"easy": 0, "medium": 1, "hard": 2}
    return {
        "ks": list(ks),
        "baselines": list(baselines),
        "overall": aggregate(tasks, ks, baselines),
        "by_difficulty": {
            d: aggregate(ts, ks, baselines)
            for d, ts in sorted(by_difficulty.items(), key=lambda kv: (order.get(kv[0], 9), kv[0]))
        },
        "by_category": {c: aggregate(ts, ks, baselines) for c, ts in sorted(by_category.items())},
        "per_task": {t.id: task_metrics(t, ks, baselines) for t in tasks},
    }
