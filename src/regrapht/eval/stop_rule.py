"""When a timing has enough rounds, and why it stopped.

Two rules, either of which ends a timing within its budget:

- precise: every timed kernel's mean is known to `target_rse` (its relative standard error, from the
  spread within each input set), after `min_rounds` timed rounds. The mean's standard error is
  fragile: one slow call in forty (a clock step, an interrupt) can keep a tiny kernel from ever
  meeting it, and the timing then runs to its budget.
- interval (a candidate's timing, where the spec has `interval`): medians instead of means, with
  distribution-free intervals (order statistics), so a heavy tail moves them by one rank, not by its
  size. The candidate's own median (the roofline gate and the speedup over the serial baseline use
  it) must be known to `own_halfwidth`, and its time over each baseline timed beside it to
  `halfwidth`, from the rounds' paired ratios: the calls of one round share their input set, the
  device's clock and its temperature, so what moves all of them alike cancels in the ratio.

Both intervals are taken on logarithms, centred on each input set's median: sets of different cost
(a power-law matrix's longest row) are a fixed effect balanced by the set order, not noise.
"""

from __future__ import annotations

from functools import lru_cache
from math import comb, log
from typing import Any

import numpy as np

# Why a timing stopped (the worker reports it with the samples).
MAX_ROUNDS = "max_rounds"
BUDGET = "budget"
PRECISE = "precise"
INTERVAL = "interval"
STOP_REASONS = (MAX_ROUNDS, BUDGET, PRECISE, INTERVAL)

CONFIDENCE = 0.95
# The lib name of a task's library.cu in a timing (its bounds: config.library_target_rse, library_halfwidth).
LIBRARY_LIB = "library"


def within_set_rse(values: list[float], sets: list[int] | None = None) -> float:
    """Relative standard error of the mean time, from the spread within each input set: input sets of
    different cost (a power-law matrix's longest row) are a fixed effect, balanced by the set order,
    not noise, and must not keep a precise measurement running to its time budget."""
    x = np.asarray(values, dtype=np.float64)
    groups = np.asarray(sets if sets else [0] * x.size)
    kinds = np.unique(groups)
    dof = x.size - kinds.size
    if dof < 1:
        return float("inf")
    residual = x.copy()
    for g in kinds:
        residual[groups == g] -= x[groups == g].mean()
    spread = np.sqrt(np.square(residual).sum() / dof)
    return float(spread / np.sqrt(x.size) / max(x.mean(), 1e-12))


@lru_cache(maxsize=1024)
def median_rank(n: int, confidence: float = CONFIDENCE) -> int:
    """The largest k (1-based) such that [x_(k), x_(n+1-k)] of n sorted samples covers their
    distribution's median with at least `confidence`, whatever the distribution (the count of samples
    below the median is binomial(n, 1/2)); 0 when no interval of n samples is that sure (n < 6 at 95%)."""
    log_tail = log((1.0 - confidence) / 2.0) + n * log(2.0)  # in counts of the 2^n outcomes
    below, k = 0, 0
    for j in range(n // 2 + 1):
        below += comb(n, j)  # samples below the median: at most j
        if log(below) > log_tail:
            break
        k = j + 1
    return k


def median_halfwidth(logs: np.ndarray, sets: np.ndarray, confidence: float = CONFIDENCE) -> float:
    """Half the width of the distribution-free interval of the median of `logs` (log times or log
    ratios: a relative width), each input set centred on its own median; inf when too few samples."""
    n = logs.size
    k = median_rank(n, confidence)
    if k == 0:
        return float("inf")
    centred = logs.copy()
    for g in np.unique(sets):
        centred[sets == g] -= np.median(logs[sets == g])
    centred.sort()
    return float((centred[n - k] - centred[k - 1]) / 2.0)


def _logs(values: list[float]) -> np.ndarray | None:
    x = np.asarray(values, dtype=np.float64)
    return np.log(x) if x.size and (x > 0).all() else None


def interval_met(samples: dict[str, dict[str, list[float]]], interval: dict[str, Any]) -> bool:
    """The interval rule: the paired lib's own median known to `own_halfwidth` and its ratio to every
    other timed lib to `halfwidth` (95% distribution-free intervals on logs)."""
    own = samples.get(interval["paired_with"])
    if own is None:
        return False
    n = len(own["event"])
    sets = np.asarray(own.get("set") or [0] * n)[:n]
    own_logs = _logs(own["event"])
    if own_logs is None or median_halfwidth(own_logs, sets) > float(interval["own_halfwidth"]):
        return False
    for lib, lib_samples in samples.items():
        if lib == interval["paired_with"]:
            continue
        logs = _logs(lib_samples["event"])
        if logs is None or logs.size != n:
            return False
        bound = float(interval.get("lib_halfwidth", {}).get(lib, interval["halfwidth"]))
        if median_halfwidth(own_logs - logs, sets) > bound:
            return False
    return True


def stop_reason(
    samples: dict[str, dict[str, list[float]]],
    spec: dict[str, Any],
    elapsed: float,
    rounds: int,
    timed: int,
) -> str | None:
    """Why the timing stops now (`rounds` rounds run, `timed` of them timed, `elapsed` seconds since
    it began), or None to go on."""
    if rounds >= int(spec["max_rounds"]):
        return MAX_ROUNDS
    over = elapsed > float(spec["budget_s"])
    if timed < int(spec["min_rounds"]):
        # Slow kernels may stop short of min_rounds once over budget, never with fewer than
        # `floor_rounds` (5 unless the spec says otherwise: a serial reference of seconds per call
        # is a baseline known to a few percent after one call, and each call costs seconds).
        if over and timed >= int(spec.get("floor_rounds", 5)):
            return BUDGET
    elif over:
        return BUDGET
    if elapsed < min(float(spec.get("min_s", 0.0)), float(spec["budget_s"])):
        return None
    bounds = spec.get("lib_target_rse") or {}
    if timed >= int(spec["min_rounds"]) and all(
        within_set_rse(s["event"], s.get("set")) <= float(bounds.get(lib, spec["target_rse"])) for lib, s in samples.items()
    ):
        return PRECISE
    interval = spec.get("interval")
    if interval and timed >= int(interval["floor_rounds"]) and interval_met(samples, interval):
        return INTERVAL
    return None


def interval_spec(timing_config: Any) -> dict[str, Any]:
    """The interval rule's part of a candidate's timing spec (protocol.IntervalSpec)."""
    tc = timing_config
    return {
        "paired_with": "candidate",
        "halfwidth": tc.interval_halfwidth,
        "own_halfwidth": tc.interval_own_halfwidth,
        "floor_rounds": max(tc.interval_floor_rounds, 6),  # fewer than 6 samples give no 95% interval
        "lib_halfwidth": {LIBRARY_LIB: tc.library_halfwidth},
    }


def warm(rounds: int = 128) -> None:
    """Run both rules once on made-up samples, so numpy's lazily imported parts and `median_rank`'s
    table up to `rounds` are loaded before a job (a spare worker calls this while it waits for one),
    not inside a timed candidate's rounds: on an H100 host the rule's first evaluation cost more than
    the rest of a timing's (session 14, call B: 2.1 ms per round on average, 0.1-1 ms after the first)."""
    n = 64
    values = [1.0 + 0.001 * ((7 * i) % 13) for i in range(n)]
    sets = [i % 2 for i in range(n)]
    samples = {"candidate": {"event": values, "set": sets}, "naive": {"event": values[::-1], "set": sets}}
    never = {"paired_with": "candidate", "halfwidth": 0.0, "own_halfwidth": 1.0, "floor_rounds": 6}
    spec = {"max_rounds": 10**9, "budget_s": 1e9, "min_rounds": 1, "min_s": 0.0, "target_rse": 0.0, "interval": never}
    stop_reason(samples, spec, 0.0, n, n)  # neither rule holds: both are evaluated in full
    for k in range(6, rounds + 1):
        median_rank(k)
