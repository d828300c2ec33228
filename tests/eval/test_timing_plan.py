"""The timing plan in the worker, without a worker: the check schedule and the stop rule's use of it."""

from __future__ import annotations

import numpy as np

from regrapht.eval.timing_plan import CHECK_WINDOWS, CheckSchedule, check_windows


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
