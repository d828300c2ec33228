"""Problem draws (reproducible; held-out never a training variant) and the replay buffer (bounded,
persisted, keeps the extremes)."""

from __future__ import annotations

from pathlib import Path

import pytest

from regrapht.rl.problems import ProblemSampler
from regrapht.rl.replay import Entry, ReplayBuffer
from regrapht.tasks.variants import size_signature


def test_draws_are_reproducible_and_held_out_variants_are_unseen(vec_scale, row_sums) -> None:
    a = ProblemSampler([vec_scale, row_sums], seed=3, train_variants=8, heldout_variants=5)
    b = ProblemSampler([vec_scale, row_sums], seed=3, train_variants=8, heldout_variants=5)
    train = [a.sample(i) for i in range(200)]
    assert [p.id for p in train] == [b.sample(i).id for i in range(200)]
    assert {p.task.id for p in train} == {"vec_scale", "row_sums"}
    for task in (vec_scale, row_sums):
        pool = {v.task.id for v in a.train_pool(task)}
        assert {p.id for p in train if p.task is task} <= pool
        held = a.heldout_pool(task)
        assert len(held) == 5 and not {v.task.id for v in held} & pool
        assert not {size_signature(v) for v in held} & {size_signature(v) for v in a.train_pool(task)}
    assert all(p.split == "heldout" for p in a.heldout())
    assert a.find(train[0].id).variant == train[0].variant
    assert a.find(a.heldout()[0].id).split == "heldout"
    with pytest.raises(KeyError, match="no problem 'vec_scale@nope'"):
        a.find("vec_scale@nope")


def test_a_range_too_narrow_for_unseen_held_out_variants_says_so(row_sums) -> None:
    sampler = ProblemSampler([row_sums], train_variants=200, heldout_variants=100)
    with pytest.raises(ValueError, match="no held-out variant unlike the 200 training ones"):
        sampler.heldout()


def entry(code: str, reward: float, task: str = "t") -> Entry:
    return Entry(task, "v1", {"n": 5}, code, "correct" if reward > -1 else "wrong_answer", None, reward)


def test_replay_is_bounded_keeps_extremes_and_persists(tmp_path: Path) -> None:
    path = str(tmp_path / "replay.sqlite")
    buf = ReplayBuffer(path, capacity=6, keep=2)
    for i, r in enumerate([-1.0, 5.0, 0.5, 0.7, 0.8, 0.9, 0.6, 4.0, -1.0, 0.55]):
        buf.add(entry(f"code {i}", r))
    assert not buf.add(entry("code 1", 0.0))  # the same code keeps its first score
    kept = buf.entries("t")
    assert len(kept) == 6
    rewards = [e.reward for e in kept]
    assert rewards[:2] == [-1.0, -1.0] and rewards[-2:] == [4.0, 5.0]  # the two worst and two best stay
    assert [e.reward for e in buf.exemplars("t", 4)] == [-1.0, -1.0, 4.0, 5.0]
    assert buf.entries("other") == []
    buf.close()
    again = ReplayBuffer(path, capacity=6, keep=2)
    assert [e.code for e in again.entries("t")] == [e.code for e in kept]
    again.close()
