"""Reward formulas (docs/rl.md) on evidence built by hand: values, the status ladder, group rewards."""

from __future__ import annotations

import math

import pytest

from regrapht.rl.rewards import REWARDS, Evidence, RewardConfig, RewardConfigError, score


def ev(status: str, speed: float | None = None, low: float | None = None) -> Evidence:
    sp = None if speed is None else {"value": speed, "ci_low": low if low is not None else speed, "ci_high": speed}
    return Evidence(status, "", "serial", speedup=sp)


GROUP = [ev("correct", 4.0, 3.0), ev("correct", 0.5), ev("wrong_answer"), ev("parse_error"),
         ev("integrity_violation"), ev("correct", 1.0), ev("compile_error")]


def values(name: str, group=GROUP, **kw) -> list[float]:
    return [r.value for r in score(group, RewardConfig(name, **kw))]


def test_formulas() -> None:
    assert values("hierarchical") == [4.0, -0.5, -1.0, -1.0, -1.0, 1.0, -1.0]
    assert values("speedup") == [4.0, 0.5, 0.0, 0.0, 0.0, 1.0, 0.0]
    assert values("clipped", cap=2.0) == [2.0, 0.5, 0.0, 0.0, 0.0, 1.0, 0.0]
    lim = math.log(64)
    assert values("log_speedup") == pytest.approx([math.log(4), math.log(0.5), -lim - 1, -lim - 1, -lim - 1, 0, -lim - 1])
    assert values("correctness") == [1, 1, 0, 0, 0, 1, 0]
    assert values("ranked") == [1.0, 1 / 3, -1, -1, -1, 2 / 3, -1]
    assert values("hierarchical", conservative=True)[0] == 3.0  # the interval's lower end


@pytest.mark.parametrize("name", REWARDS)
def test_every_correct_completion_outranks_every_failure(name: str) -> None:
    slow = [ev("correct", 1e-6), ev("correct", 1e6)] + GROUP
    got = values(name, slow)
    correct = [v for v, e in zip(got, slow) if e.status == "correct"]
    failed = [v for v, e in zip(got, slow) if e.status != "correct"]
    assert min(correct) > max(failed)


def test_group_normalized_is_standardized_and_clipped() -> None:
    group = [ev("correct", 100.0)] + [ev("wrong_answer")] * 20
    got = values("group_normalized", group, clip_k=2.0)
    assert got[0] == 2.0 and all(v == pytest.approx(got[1]) for v in got[1:]) and got[1] < 0
    assert values("group_normalized", [ev("wrong_answer")] * 3) == [0.0, 0.0, 0.0]  # no spread: no signal


def test_ranked_ties_share_their_mean_rank() -> None:
    assert values("ranked", [ev("correct", 2.0), ev("correct", 2.0), ev("correct", 1.0)]) == [5 / 6, 5 / 6, 1 / 3]


def test_correct_but_unmeasured_is_said_not_invented() -> None:
    from regrapht.eval.record import Evaluation
    from regrapht.rl.rewards import evidence_of

    record = Evaluation("t", "cpu", "correct", "", "sha")
    e = evidence_of(record, "serial", {"rule": "only"})
    assert e.speedup is None and "no speedup against 'serial'" in e.notes[0]
    assert values("hierarchical", [e]) == [0.0] and values("log_speedup", [e]) == [0.0]


def test_bad_configs_are_refused() -> None:
    with pytest.raises(RewardConfigError, match="unknown reward 'fast'"):
        RewardConfig("fast")
    with pytest.raises(RewardConfigError, match="unknown baseline 'cublas'"):
        RewardConfig(baseline="cublas")
    with pytest.raises(RewardConfigError, match="cap must be above 1"):
        RewardConfig(cap=1.0)
