"""The timing's stop rules without a worker: the distribution-free median intervals, the paired
ratios, and which rule ends a timing when."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from regrapht.eval.config import TimingConfig
from regrapht.eval.stop_rule import (
    BUDGET,
    INTERVAL,
    LIBRARY_LIB,
    MAX_ROUNDS,
    PRECISE,
    interval_met,
    interval_spec,
    median_halfwidth,
    median_rank,
    stop_reason,
    warm,
    within_set_rse,
)

SPEC = {"max_rounds": 400, "min_rounds": 10, "budget_s": 1.0, "target_rse": 0.005, "min_s": 0.1}
INTERVAL_SPEC = {"paired_with": "candidate", "halfwidth": 0.005, "own_halfwidth": 0.01, "floor_rounds": 6}


def _lib(times, sets=None) -> dict:
    return {"event": list(times), "host": list(times), "set": list(sets if sets is not None else [0, 1] * (len(times) // 2))}


def test_median_ranks_are_the_binomial_ones() -> None:
    assert median_rank(5) == 0  # [min, max] of 5 covers the median only 93.75% of the time
    assert median_rank(6) == 1  # 1 - 2/64
    assert median_rank(10) == 2  # P(at most 1 of 10 below the median) = 11/1024
    assert median_rank(2000) > 900  # large counts: no overflow, and near the middle


def test_the_median_interval_covers_a_skewed_median_at_least_95_percent() -> None:
    """Exponential times (heavily skewed): the interval holds the true median in >= 95% of draws."""
    rng = np.random.default_rng(11)
    true_median = np.log(np.log(2.0))
    hits = 0
    for _ in range(2000):
        logs = np.log(rng.exponential(size=20))
        hw = median_halfwidth(logs, np.zeros(20, dtype=int))
        # centred on the median, the interval's ends are the order statistics around it
        centre = np.median(logs)
        s = np.sort(logs)
        k = median_rank(20)
        assert hw == pytest.approx((s[20 - k] - s[k - 1]) / 2)
        hits += s[k - 1] <= true_median <= s[20 - k]
        assert s[k - 1] <= centre <= s[20 - k]
    assert hits / 2000 >= 0.95


def test_a_heavy_tail_stops_by_the_interval_where_the_mean_never_would() -> None:
    """One call in eight three times slower: the mean's RSE stays far above 0.5% at 80 rounds, but
    the median is known to a fraction of a percent."""
    rng = np.random.default_rng(4)
    n = 80
    times = 1e-3 * (1 + 5e-4 * rng.standard_normal(n))
    times[::8] *= 3.0
    samples = {"candidate": _lib(times)}
    assert within_set_rse(samples["candidate"]["event"], samples["candidate"]["set"]) > 0.05
    assert stop_reason(samples, SPEC, elapsed=0.3, rounds=n + 3, timed=n) is None  # the old rule alone
    spec = {**SPEC, "interval": INTERVAL_SPEC}
    assert stop_reason(samples, spec, elapsed=0.3, rounds=n + 3, timed=n) == INTERVAL


def test_paired_ratios_cancel_what_moves_a_whole_round() -> None:
    """Each round's calls share a slowly drifting clock (+-3%): every baseline's own median is not
    known to 0.5%, but the candidate's time over it is; independent noise of the same size is not."""
    rng = np.random.default_rng(7)
    n = 30
    drift = 1 + 0.03 * np.sin(np.arange(n) / 3.0)
    cand = 1e-3 * drift * (1 + 2e-4 * rng.standard_normal(n))
    base = 2e-3 * drift * (1 + 2e-4 * rng.standard_normal(n))
    spec = {"paired_with": "candidate", "halfwidth": 0.005, "own_halfwidth": 0.05, "floor_rounds": 6}
    paired = {"candidate": _lib(cand), "naive": _lib(base)}
    assert median_halfwidth(np.log(base), np.zeros(n, dtype=int)) > 0.005
    assert interval_met(paired, spec)
    shuffled = {"candidate": _lib(cand), "naive": _lib(rng.permutation(base))}  # the pairing lost
    assert not interval_met(shuffled, spec)


def test_the_own_median_bounds_the_candidate_even_where_its_ratios_are_tight() -> None:
    rng = np.random.default_rng(2)
    n = 30
    drift = 1 + 0.05 * rng.standard_normal(n)  # 5% common noise: ratios exact, own median not known
    paired = {"candidate": _lib(1e-3 * drift), "naive": _lib(2e-3 * drift)}
    assert not interval_met(paired, INTERVAL_SPEC)
    assert interval_met(paired, {**INTERVAL_SPEC, "own_halfwidth": 0.5})


def test_input_sets_of_different_cost_are_not_noise_to_the_interval() -> None:
    rng = np.random.default_rng(3)
    sets = [0, 1] * 10
    times = [(1e-3 if s == 0 else 3e-3) * (1 + 1e-3 * rng.standard_normal()) for s in sets]
    assert median_halfwidth(np.log(times), np.asarray(sets)) < 0.002
    assert median_halfwidth(np.log(times), np.zeros(20, dtype=int)) > 0.3  # pooled: the sets' gap


def test_the_interval_waits_for_its_floor_and_min_s_and_needs_every_baseline() -> None:
    precise = {"candidate": _lib([1e-3] * 8), "naive": _lib([2e-3] * 8)}
    spec = {**SPEC, "interval": INTERVAL_SPEC}
    assert stop_reason(precise, spec, elapsed=0.2, rounds=11, timed=8) == INTERVAL
    assert stop_reason(precise, spec, elapsed=0.05, rounds=11, timed=8) is None  # min_s
    assert stop_reason(precise, spec, elapsed=0.2, rounds=8, timed=5) is None  # floor
    short = {"candidate": _lib([1e-3] * 8), "naive": _lib([2e-3] * 6, [0, 1] * 3)}
    assert not interval_met(short, INTERVAL_SPEC)  # rounds not paired: no ratio to bound
    assert not interval_met({"naive": _lib([2e-3] * 8)}, INTERVAL_SPEC)  # the paired lib is missing
    assert not interval_met({"candidate": _lib([0.0] * 8)}, INTERVAL_SPEC)  # no log of a zero time


def test_each_stop_has_its_reason() -> None:
    noisy = {"candidate": _lib(np.random.default_rng(1).uniform(1e-3, 2e-3, 40))}
    precise = {"candidate": _lib([1e-3] * 40)}
    assert stop_reason(noisy, SPEC, elapsed=0.5, rounds=400, timed=397) == MAX_ROUNDS
    assert stop_reason(noisy, SPEC, elapsed=1.2, rounds=43, timed=40) == BUDGET
    assert stop_reason(noisy, SPEC, elapsed=1.2, rounds=7, timed=4) is None  # under the floor of 5
    assert stop_reason(noisy, SPEC, elapsed=1.2, rounds=8, timed=5) == BUDGET
    assert stop_reason(precise, SPEC, elapsed=0.5, rounds=43, timed=40) == PRECISE
    assert stop_reason(noisy, SPEC, elapsed=0.5, rounds=43, timed=40) is None


def test_the_spec_never_asks_for_an_interval_fewer_samples_can_give() -> None:
    spec = interval_spec(TimingConfig(interval_floor_rounds=2))
    assert spec["floor_rounds"] == 6 and spec["paired_with"] == "candidate"


def test_the_paired_ratio_weighs_each_input_set_alike_and_refuses_unpaired_rounds() -> None:
    from regrapht.eval.stats import paired_ratio

    # set 0 costs 1 ms, set 1 costs 3 ms, the candidate is twice as fast on both
    sets = [0, 1] * 5
    base = [1e-3 if s == 0 else 3e-3 for s in sets]
    cand = [b / 2 for b in base]
    assert paired_ratio(base, cand, sets) == pytest.approx(2.0)
    assert paired_ratio(base, cand[:-1], sets) is None
    assert paired_ratio([0.0] * 10, cand, sets) is None
    # the sets weigh alike however many rounds each had
    assert paired_ratio([1.0, 1.0, 1.0, 4.0], [1.0, 1.0, 1.0, 1.0], [0, 0, 0, 1]) == pytest.approx(2.0)


def _noisy_library_timing(n: int = 24) -> dict:
    """The candidate and naive.cu known to well under 0.5% (mean and paired ratio), library.cu's
    calls spread by about 3% (a vendor call's own launch work varying), as stop_rule_probe.py saw."""
    rng = np.random.default_rng(3)
    sets = [0, 1] * (n // 2)
    cand = 1e-3 * (1 + 2e-4 * rng.standard_normal(n))
    naive = 2 * cand * (1 + 2e-4 * rng.standard_normal(n))
    library = 0.8e-3 * (1 + 0.03 * rng.standard_normal(n))
    return {"candidate": _lib(cand, sets), "naive": _lib(naive, sets), LIBRARY_LIB: _lib(library, sets)}


def test_the_library_is_timed_to_its_own_looser_bounds() -> None:
    samples = _noisy_library_timing()
    tc = TimingConfig()
    strict = {**SPEC, "interval": {**INTERVAL_SPEC}}
    assert stop_reason(samples, strict, elapsed=0.3, rounds=27, timed=24) is None  # to the budget, before
    loose = {**SPEC, "interval": interval_spec(tc), "lib_target_rse": {LIBRARY_LIB: tc.library_target_rse}}
    assert loose["interval"]["lib_halfwidth"] == {LIBRARY_LIB: tc.library_halfwidth}
    assert stop_reason(samples, loose, elapsed=0.3, rounds=27, timed=24) == PRECISE
    # The interval rule alone: the library's paired ratio (known to ~2.1% here) to its own bound.
    wide = {**INTERVAL_SPEC, "lib_halfwidth": {LIBRARY_LIB: 0.03}}
    assert stop_reason(samples, {**SPEC, "interval": wide}, elapsed=0.3, rounds=27, timed=24) == INTERVAL
    assert not interval_met(samples, {**INTERVAL_SPEC, "lib_halfwidth": {LIBRARY_LIB: 0.01}})
    # The precise rule alone: the library's mean to library_target_rse, the others' to target_rse.
    assert stop_reason(samples, {**SPEC, "lib_target_rse": {LIBRARY_LIB: 0.02}}, 0.3, 27, 24) == PRECISE
    assert stop_reason(samples, {**SPEC, "lib_target_rse": {LIBRARY_LIB: 0.001}}, 0.3, 27, 24) is None
    # naive.cu, the reward's kernel, keeps the strict bound: noise there still runs to the budget.
    noisy_naive = {**samples, "naive": samples[LIBRARY_LIB], LIBRARY_LIB: samples["naive"]}
    assert stop_reason(noisy_naive, loose, elapsed=0.3, rounds=27, timed=24) is None


def test_the_spec_names_looser_bounds_for_the_library_only() -> None:
    from regrapht.eval.config import EvalConfig
    from regrapht.eval.jobs import Jobs
    from regrapht.tasks import find_task

    jobs = Jobs(EvalConfig(), b"k" * 16, None, Path("/tmp"))  # type: ignore[arg-type]
    task = find_task("saxpy")
    spec = jobs.timing_spec(task, Path("/tmp"), {}, ["candidate", "naive", LIBRARY_LIB], ["candidate"], 1.0, 400)
    assert spec["lib_target_rse"] == {LIBRARY_LIB: TimingConfig().library_target_rse}
    assert jobs.timing_spec(task, Path("/tmp"), {}, ["candidate", "naive"], ["candidate"], 1.0, 400)["lib_target_rse"] == {}


def test_the_suite_check_times_the_library_to_the_candidate_s_bounds() -> None:
    from regrapht.eval.config import EvalConfig
    from regrapht.eval.suitecheck import strict_library_bounds

    tc = strict_library_bounds(EvalConfig()).timing_config
    assert (tc.library_target_rse, tc.library_halfwidth) == (tc.target_rse, tc.interval_halfwidth)


def test_warm_loads_the_rule_s_tables_ahead_of_a_job() -> None:
    median_rank.cache_clear()
    warm(rounds=40)
    assert median_rank.cache_info().currsize >= 35
