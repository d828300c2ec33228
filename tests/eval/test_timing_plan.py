"""The timing plan in the worker, without a worker: the check schedule and the stop rule's use of it."""

from __future__ import annotations

import numpy as np

from regrapht.eval.timing_plan import (
    CHECK_WINDOWS,
    CheckSchedule,
    check_windows,
    enough,
    paired_enough,
    paired_rse,
    within_set_rse,
)


def _spec(**extra) -> dict:
    return {"max_rounds": 100, "check_libs": ["candidate"], "warmup_rounds": 2, "warmup_s": 10.0, **extra}


def test_checked_calls_are_the_first_timed_one_and_one_per_window() -> None:
    schedule = CheckSchedule(_spec(), np.random.default_rng(5), sets=2, fresh=None)
    assert schedule.timed_from is None and not schedule.timed(0)
    schedule.next_round(1, elapsed=0.1)
    assert schedule.timed_from is None  # one warm-up round is left
    schedule.next_round(2, elapsed=0.2)
    assert schedule.timed_from == 2
    checked = [r for r in range(2, 100) if schedule.checked("candidate", r)]
    assert checked[0] == 2 and len(checked) == 1 + len(CHECK_WINDOWS)
    for (lo, hi), r in zip(check_windows(100), checked[1:]):
        assert lo <= r - 2 < hi
    assert not any(schedule.checked("naive", r) for r in range(100))  # only the checked libraries


def test_warm_up_ends_early_once_its_seconds_are_spent() -> None:
    schedule = CheckSchedule(_spec(warmup_rounds=50, warmup_s=1.0), np.random.default_rng(1), sets=2, fresh=None)
    schedule.next_round(1, elapsed=1.5)
    assert schedule.timed_from == 1 and schedule.timed_rounds(4) == 3


def test_the_stop_rule_owes_a_final_checked_round_unless_nothing_is_checked() -> None:
    schedule = CheckSchedule(_spec(warmup_rounds=0), np.random.default_rng(2), sets=2, fresh=None)
    assert schedule.stop(30) is False and schedule.stop_after == 30
    assert schedule.final(30) and schedule.checked("candidate", 30)
    reference = CheckSchedule(_spec(check_libs=[]), np.random.default_rng(2), sets=2, fresh=None)
    assert reference.stop(30) is True


def test_one_seed_gives_one_schedule() -> None:
    a = CheckSchedule(_spec(warmup_rounds=0), np.random.default_rng(9), sets=3, fresh=None)
    b = CheckSchedule(_spec(warmup_rounds=0), np.random.default_rng(9), sets=3, fresh=None)
    assert a.sequence == b.sequence and a.offsets == b.offsets
    assert all(sorted(a.sequence[i : i + 3]) == [0, 1, 2] for i in range(0, 99, 3))  # shuffled blocks


def _stop_spec(**extra) -> dict:
    return {"max_rounds": 400, "min_rounds": 10, "budget_s": 1.0, "min_s": 0.1, "target_rse": 0.005, **extra}


def _common_mode_rounds(rounds: int, seed: int = 0) -> dict:
    """A candidate 2x faster than its baseline, every round's calls slowed alike by up to 20% (the
    device's clock, data-dependent work): each kernel's own time is noisy, their ratio is not."""
    rng = np.random.default_rng(seed)
    common = 1.0 + 0.2 * rng.random(rounds)
    own = lambda: 1.0 + 0.001 * rng.standard_normal(rounds)  # noqa: E731
    sets = [r % 2 for r in range(rounds)]
    return {
        "candidate": {"event": list(1e-3 * common * own()), "set": sets},
        "naive": {"event": list(2e-3 * common * own()), "set": sets},
    }


def test_paired_ratios_stop_a_timing_whose_noise_is_common_to_each_round() -> None:
    samples = _common_mode_rounds(30)
    assert within_set_rse(samples["naive"]["event"], samples["naive"]["set"]) > 0.005  # own times: not yet
    assert paired_rse(samples["candidate"]["event"], samples["naive"]["event"], samples["candidate"]["set"]) < 0.001
    assert not enough(samples, _stop_spec(), 0.5, 30, 30)  # without pairing it would run on to the budget
    assert enough(samples, _stop_spec(paired_with="candidate", paired_own_rse=0.05), 0.5, 30, 30)
    # the candidate's own time must still be known to paired_own_rse (its median is reported)
    assert not enough(samples, _stop_spec(paired_with="candidate", paired_own_rse=0.001), 0.5, 30, 30)
    # and the usual floors hold: min_rounds, min_s
    assert not enough(samples, _stop_spec(paired_with="candidate", paired_own_rse=0.05), 0.5, 9, 9)
    assert not enough(samples, _stop_spec(paired_with="candidate", paired_own_rse=0.05), 0.05, 30, 30)


def test_independent_noise_is_not_mistaken_for_a_tight_ratio() -> None:
    rng = np.random.default_rng(1)
    sets = [r % 2 for r in range(30)]
    samples = {
        "candidate": {"event": list(1e-3 * (1 + 0.1 * rng.random(30))), "set": sets},
        "naive": {"event": list(2e-3 * (1 + 0.1 * rng.random(30))), "set": sets},
    }
    assert paired_rse(samples["candidate"]["event"], samples["naive"]["event"], sets) > 0.005
    assert not paired_enough(samples, _stop_spec(paired_with="candidate", paired_own_rse=0.05))
    # no pairing for a lone lib (the serial reference) or a spec without one
    assert not paired_enough({"serial": samples["naive"]}, _stop_spec(paired_with="serial"))
    assert not paired_enough(_common_mode_rounds(30), _stop_spec())


def test_a_paired_stop_keeps_the_speedup_repeatable() -> None:
    """Speedups (ratio of medians) from timings stopped by the paired rule at its first chance agree
    across independent runs to well within the 0.5% repeatability target."""
    ratios = []
    for seed in range(10):
        full = _common_mode_rounds(400, seed)
        spec = _stop_spec(paired_with="candidate", paired_own_rse=0.05)
        n = next(k for k in range(10, 401) if enough({lib: {key: v[:k] for key, v in s.items()} for lib, s in full.items()}, spec, 0.5, k, k))
        ratios.append(np.median(full["naive"]["event"][:n]) / np.median(full["candidate"]["event"][:n]))
    assert max(ratios) / min(ratios) - 1 < 0.005
