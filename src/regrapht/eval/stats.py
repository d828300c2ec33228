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


def summarize(primary: list[float], host: list[float], event: list[float]) -> TimingSummary:
    values = np.asarray(primary, dtype=np.float64)
    q1, median, q3 = np.percentile(values, [25, 50, 75])
    mean = float(values.mean())
    rse = (
        float(values.std(ddof=1) / np.sqrt(values.size) / mean)
        if values.size > 1 and mean > 0
        else float("nan")
    )
    return TimingSummary(
        float(median),
        float(q1),
        float(q3),
        float(q3 - q1),
        mean,
        rse,
        int(values.size),
        float(np.median(host)),
        float(np.median(event)),
    )


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
) -> Speedup:
    """Ratio of median times (baseline / candidate) with a percentile bootstrap interval."""
    base, cand = np.asarray(baseline, dtype=np.float64), np.asarray(candidate, dtype=np.float64)
    value = float(np.median(base) / np.median(cand))
    rng = np.random.default_rng(seed)
    base_idx = rng.integers(0, base.size, (resamples, base.size))
    cand_idx = rng.integers(0, cand.size, (resamples, cand.size))
    ratios = np.median(base[base_idx], axis=1) / np.median(cand[cand_idx], axis=1)
    alpha = (1 - confidence) / 2
    low, high = np.quantile(ratios, [alpha, 1 - alpha])
    return Speedup(value, float(low), float(high), name)


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
