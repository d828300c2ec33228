"""Summaries of timing samples and confidence intervals for speedups."""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np


@dataclass
class TimingSummary:
    median_s: float
    q1_s: float
    q3_s: float
    iqr_s: float
    mean_s: float
    rse: float  # relative standard error of the mean
    n: int
    host_median_s: float
    event_median_s: float

    def to_dict(self) -> dict:
        return asdict(self)


def _groups(values: np.ndarray, sets: list[int] | None) -> list[np.ndarray]:
    """The samples of each input set (one group where sets are not given or do not match)."""
    if sets is None or len(sets) != values.size or values.size == 0:
        return [values]
    labels = np.asarray(sets)
    return [values[labels == g] for g in np.unique(labels)]


def balanced_quantile(values: list[float], sets: list[int] | None, q: float | list[float]) -> np.ndarray:
    """Quantile(s) `q` (0-100) of each input set's samples, averaged over the sets: every set weighs the
    same whatever its sample count. A timing that stops in any round leaves one set a sample ahead;
    with sets of different cost, a quantile of the pooled samples then falls on one set's value or the
    other's, and moves between evaluations."""
    x = np.asarray(values, dtype=np.float64)
    return np.mean([np.percentile(g, q) for g in _groups(x, sets)], axis=0)


def summarize(
    primary: list[float], host: list[float], event: list[float], sets: list[int] | None = None
) -> TimingSummary:
    """Median, quartiles, mean and relative standard error of `primary` (and the medians of `host` and
    `event`). With `sets` (each sample's input set) every statistic is taken per set and averaged over
    the sets, so each set weighs the same (`balanced_quantile`); the standard error is the spread within
    each set (the sets' different costs are a fixed effect, as in the stop rule). Without, or with one
    set, the plain statistics of the pooled samples."""
    values = np.asarray(primary, dtype=np.float64)
    groups = _groups(values, sets)
    q1, median, q3 = balanced_quantile(primary, sets, [25, 50, 75])
    mean = float(np.mean([g.mean() for g in groups]))
    dof = values.size - len(groups)
    spread = np.sqrt(sum(float(np.square(g - g.mean()).sum()) for g in groups) / dof) if dof > 0 else float("nan")
    rse = float(spread / np.sqrt(values.size) / mean) if dof > 0 and mean > 0 else float("nan")
    return TimingSummary(
        float(median),
        float(q1),
        float(q3),
        float(q3 - q1),
        mean,
        rse,
        int(values.size),
        float(balanced_quantile(host, sets, 50)),
        float(balanced_quantile(event, sets, 50)),
    )


@dataclass(frozen=True)
class SetSamples:
    """A kernel's timed samples with each one's input set (None: one set, or not known)."""

    values: list[float]
    sets: list[int] | None = None


@dataclass
class Speedup:
    value: float
    ci_low: float
    ci_high: float
    baseline: str

    def to_dict(self) -> dict:
        return asdict(self)


def speedup(
    baseline: list[float],
    candidate: list[float],
    name: str,
    seed: int = 0,
    resamples: int = 2000,
    confidence: float = 0.95,
    baseline_sets: list[int] | None = None,
    candidate_sets: list[int] | None = None,
) -> Speedup:
    """Ratio of median times (baseline / candidate) with a percentile bootstrap interval. With a side's
    input sets, its median is `balanced_quantile`'s (each set weighs the same) and its bootstrap
    resamples within each set, so every resample keeps the set counts of the measurement."""
    base, cand = np.asarray(baseline, dtype=np.float64), np.asarray(candidate, dtype=np.float64)
    base_groups, cand_groups = _groups(base, baseline_sets), _groups(cand, candidate_sets)
    rng = np.random.default_rng(seed)
    if len(base_groups) == 1 and len(cand_groups) == 1:
        value = float(np.median(base) / np.median(cand))
        base_idx = rng.integers(0, base.size, (resamples, base.size))
        cand_idx = rng.integers(0, cand.size, (resamples, cand.size))
        ratios = np.median(base[base_idx], axis=1) / np.median(cand[cand_idx], axis=1)
    else:
        value = float(np.mean([np.median(g) for g in base_groups]) / np.mean([np.median(g) for g in cand_groups]))
        ratios = _resampled_medians(base_groups, rng, resamples) / _resampled_medians(cand_groups, rng, resamples)
    alpha = (1 - confidence) / 2
    low, high = np.quantile(ratios, [alpha, 1 - alpha])
    return Speedup(value, float(low), float(high), name)


def _resampled_medians(groups: list[np.ndarray], rng: np.random.Generator, resamples: int) -> np.ndarray:
    """Bootstrap replicates of the per-set medians' mean, each set resampled within itself."""
    return np.mean([np.median(g[rng.integers(0, g.size, (resamples, g.size))], axis=1) for g in groups], axis=0)


def paired_ratio(baseline: list[float], candidate: list[float], sets: list[int] | None = None) -> float | None:
    """The baseline's time over the candidate's from the rounds in which both ran (the same input set,
    back to back): per input set the median of the rounds' log ratios, averaged over the sets so each
    weighs the same. None where the rounds do not pair or a time is not positive. Beside the ratio of
    medians as information: with input sets of different cost, a median of a few samples falls on
    one set's cost or the other's; a per-set paired ratio does not."""
    if len(baseline) != len(candidate) or not baseline:
        return None
    b, c = np.asarray(baseline, dtype=np.float64), np.asarray(candidate, dtype=np.float64)
    if (b <= 0).any() or (c <= 0).any():
        return None
    logs = np.log(b) - np.log(c)
    groups = np.asarray(sets if sets and len(sets) == len(logs) else [0] * len(logs))
    return float(np.exp(np.mean([np.median(logs[groups == g]) for g in np.unique(groups)])))
