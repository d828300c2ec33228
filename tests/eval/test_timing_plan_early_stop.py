"""Fresh-input checks under every early stop the interval rule allows (session 13's false
integrity_violation on the H100): whatever round the timing stops at, every checked call the worker
runs uses its slot's base set and key, no slot is checked twice, the final slot is checked on the
round the stop placed, and the parent accepts each report (timing_verdict.checked_case) for the very
case whose expected outputs it holds. Drives CheckSchedule as TimingRun.run does, round by round."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from regrapht.eval.reference import CHECKED_CALLS, Perturbation, RefCase
from regrapht.eval.timing_plan import CheckSchedule, FreshInputs
from regrapht.eval.timing_verdict import checked_case


def _bench(sets: int, start: int) -> SimpleNamespace:
    """A BenchReference's fresh-input part as checked_calls() lays it out: slot k on base set
    (start + k) % sets, each slot its own key."""
    checked = [
        RefCase(f"slot {k}", {}, (start + k) % sets, Path("."), {}, {}, perturb=Perturbation(1000 + k, {}))
        for k in range(CHECKED_CALLS)
    ]
    return SimpleNamespace(checked=checked)


def _run(spec: dict, seed: int, sets: int, bench: SimpleNamespace, stop_at: int, warmup_s_at: int | None):
    """The rounds TimingRun.run would run: (round, slot, set, key, final) of each checked call."""
    fresh = FreshInputs.from_spec(
        {"slots": [[c.seed_index, c.perturb.key] for c in bench.checked], "arrays": {}}, sets
    )
    schedule = CheckSchedule(spec, np.random.default_rng(seed), sets, fresh)
    calls, round_index = [], 0
    while True:
        final = schedule.final(round_index)
        slot = schedule.slot(round_index)
        key = schedule.key(round_index)
        if schedule.checked("candidate", round_index):
            calls.append((round_index, slot, schedule.sequence[round_index], key, final))
        if final:
            return calls, schedule
        round_index += 1
        # The warm-up may end on its seconds before its rounds are spent.
        elapsed = 1.0 if warmup_s_at is not None and round_index >= warmup_s_at else 0.0
        schedule.next_round(round_index, elapsed)
        if schedule.stop_after is None and schedule.timed_rounds(round_index) >= stop_at:
            assert schedule.stop(round_index) is False


@pytest.mark.parametrize("sets", [1, 2, 3])
def test_every_early_stop_checks_each_slot_on_its_own_set_and_key(sets: int) -> None:
    for seed in range(60):
        bench = _bench(sets, start=seed % sets)
        for warmup_rounds, warmup_s_at in ((3, None), (3, 1), (0, None)):
            spec = {"max_rounds": 400, "check_libs": ["candidate"], "warmup_rounds": warmup_rounds, "warmup_s": 0.5}
            # 6: the interval rule's floor; later stops land before, inside and after each window.
            for stop_at in (6, 7, 8, 9, 10, 13, 20, 63, 64, 70):
                calls, schedule = _run(spec, seed, sets, bench, stop_at, warmup_s_at)
                where = f"seed {seed}, {sets} sets, warm-up {warmup_rounds}/{warmup_s_at}, stop after {stop_at}"
                slots = [slot for _, slot, _, _, _ in calls]
                assert len(slots) == len(set(slots)), where
                first = next(
                    r for r in range(schedule.timed_from, len(schedule.sequence))
                    if schedule.sequence[r] == bench.checked[0].seed_index
                )
                # (A window's round may come before it: the first timed round may be another set's.)
                assert (first, 0) in [(r, slot) for r, slot, _, _, _ in calls], where
                assert calls[-1][1] == CHECKED_CALLS - 1 and calls[-1][4], where
                assert calls[-1][0] == schedule.stop_after >= schedule.timed_from + stop_at, where
                judged: dict[tuple[str, int], int] = {}
                for round_index, slot, set_index, key, _ in calls:
                    case = bench.checked[slot]
                    assert set_index == case.seed_index and key == case.perturb.key, where
                    report = {"lib": "candidate", "slot": slot, "set": set_index, "round": round_index}
                    assert checked_case(bench, report, judged) is case, where
                    judged[("candidate", slot)] = round_index
