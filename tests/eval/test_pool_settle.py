"""A pool batch settles its serial baselines once, at its end, lane after lane: a lane's calls do not
settle theirs (which stopped its device mid-batch, discarded its spare worker and timed beside the
other lanes' work), and the restated records replace the first ones where they went. The lanes'
counters say where each lane's time went."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from regrapht.eval import Evaluation, Evaluator
from regrapht.eval.devices import LaneSpec, lanes_for
from regrapht.eval.lanes import LaneDied, LaneState, close_batch, evaluate_batch, open_batch
from regrapht.eval.pool import DevicePool, pool_config
from regrapht.tasks import load_task
from tests.eval.conftest import HERE, candidate, quick_config


def _config(tmp_path: Path, build_cache: Path):
    config = quick_config(build_cache, serial_store=str(tmp_path / "baselines.sqlite"))
    # No timing is ever kept (whatever the shared test machine's load): every batch settles its own.
    config.timing_config.serial_max_median_error = 1e9
    config.timing_config.serial_max_background = -1.0
    return config


def test_an_open_batch_settles_every_calls_baselines_at_its_close(tmp_path, build_cache, vec_scale):
    with Evaluator(_config(tmp_path, build_cache)) as evaluator:
        evaluator.open_batch()
        [first] = evaluator.evaluate_many([(vec_scale, candidate("correct.cpp"), "cpu")])
        [second] = evaluator.evaluate_many([(vec_scale, vec_scale.serial_source(), "cpu")])
        # Neither call settled at its end: both records still divide by the batch's timing in turns.
        for ev in (first, second):
            assert ev.status == "correct", ev.message
            assert "serial_settle" not in ev.seconds and "restated_from" not in ev.timings["serial"]
            assert ev.seconds["compile_wait"] >= 0.0 and ev.seconds["parent_reply"] >= 0.0
        restated = evaluator.close_batch()
        assert [id(r) for r in restated] == [id(first), id(second)]  # one settle for both calls
        for ev in restated:
            assert ev.seconds["serial_settle"] > 0 and ev.timings["serial"]["restated_from"]["quiet"] is False
        assert evaluator.close_batch() == []  # nothing is open any more
        # Closed, a batch settles at its own end again.
        [alone] = evaluator.evaluate_many([(vec_scale, candidate("correct.cpp"), "cpu")])
        assert "serial_settle" in alone.seconds


def test_a_lane_left_in_a_batch_closes_it_before_the_next_opens(tmp_path, build_cache, vec_scale):
    state = LaneState(LaneSpec("cpu0"), _config(tmp_path, build_cache))
    try:
        open_batch(state)
        [ev] = evaluate_batch(state, [(vec_scale, candidate("correct.cpp"), "cpu")])
        assert "serial_settle" not in ev.seconds
        open_batch(state)  # the driver of the first batch raised before closing it
        assert close_batch(state) == []  # the second batch ran nothing
        [alone] = state.evaluator.evaluate_many([(vec_scale, candidate("correct.cpp"), "cpu")])
        assert "serial_settle" in alone.seconds  # no batch is left open: it settled at its own end
    finally:
        state.close()


class RestatingLane:
    """A lane whose close_batch restates the second record it returned; it logs what it is sent."""

    def __init__(self, name: str, log: list, dies_at_close: bool = False, fails_at_close: bool = False) -> None:
        self.name, self.log, self.alive, self.dies_at_close = name, log, True, dies_at_close
        self.fails_at_close = fails_at_close
        self.gpu = None

    def call(self, fn, *args):
        self.log.append((fn.__name__, self.name))
        if fn.__name__ == "close_batch":
            if self.dies_at_close:
                self.alive = False
                raise LaneDied(f"lane {self.name}: killed")
            if self.fails_at_close:
                raise OSError("the serial-baseline store is read-only")
            return [(1, Evaluation("restated", "cpu", "correct", "", "", fingerprint={"lane": self.name}))]
        [items] = args
        return [
            Evaluation(task.id, target, "correct", "", hashlib.sha256(source.encode()).hexdigest(),
                       fingerprint={"lane": self.name})
            for task, source, target in items
        ]

    def post(self, fn, *args):
        self.log.append((fn.__name__, self.name))

    def close(self):
        pass


def _items():
    tasks = [load_task(HERE / "tasks" / name) for name in ("vec_scale", "sin_series")]
    return [(task, f"candidate {k} of {task.id}", "cpu") for task in tasks for k in range(2)]


def test_the_pool_opens_each_lane_before_its_work_and_settles_lane_after_lane_at_the_end():
    log: list = []
    pool = DevicePool(pool_config(None, 2), [RestatingLane("l0", log), RestatingLane("l1", log)])
    items = _items()
    results = pool.evaluate_many(items)
    for lane in ("l0", "l1"):
        mine = [kind for kind, name in log if name == lane]
        assert mine[0] == "open_batch" and mine[-1] == "close_batch" and mine.count("close_batch") == 1
    # Every lane's work ends before the first close: nothing settles beside another lane's work.
    closes = [k for k, (kind, _) in enumerate(log) if kind == "close_batch"]
    assert max(k for k, (kind, _) in enumerate(log) if kind == "evaluate_batch") < min(closes)
    # Each lane ran one task's two items; its second record came back restated, in its place.
    assert [r.task_id for r in results] == ["vec_scale", "restated", "sin_series", "restated"]
    stats = pool.lane_stats
    assert set(stats["lanes"]) == {"l0", "l1"} and stats["wall_s"] > 0
    for lane in stats["lanes"].values():
        assert lane["calls"] == 1 and lane["items"] == 2
        assert lane["busy_s"] >= 0 and lane["settle_s"] >= 0 and lane["idle_s"] >= 0
    # The timeline: each lane's call, then its settle, in order, within the batch's wall time.
    for name, task in (("l0", "vec_scale"), ("l1", "sin_series")):
        spans = [s for s in stats["timeline"] if s["lane"] == name]
        assert [s["kind"] for s in spans] == ["call", "settle"]
        assert spans[0]["tasks"] == [task] and spans[0]["items"] == 2
        assert 0 <= spans[0]["from"] <= spans[0]["to"] <= spans[1]["from"] <= spans[1]["to"] <= stats["wall_s"] + 1e-3


def test_a_lane_that_dies_settling_keeps_its_records_and_is_reported():
    log: list = []
    pool = DevicePool(pool_config(None, 2), [RestatingLane("l0", log, dies_at_close=True), RestatingLane("l1", log)])
    results = pool.evaluate_many(_items())
    assert [r.task_id for r in results] == ["vec_scale", "vec_scale", "sin_series", "restated"]
    assert len(pool.deaths) == 1 and "l0" in pool.deaths[0]


def test_a_lane_whose_settle_fails_keeps_its_records_and_the_next_lane_still_closes():
    log: list = []
    pool = DevicePool(pool_config(None, 2), [RestatingLane("l0", log, fails_at_close=True), RestatingLane("l1", log)])
    results = pool.evaluate_many(_items())
    assert [r.task_id for r in results] == ["vec_scale", "vec_scale", "sin_series", "restated"]
    assert [name for kind, name in log if kind == "close_batch"] == ["l0", "l1"]
    assert len(pool.deaths) == 1 and "l0" in pool.deaths[0] and "read-only" in pool.deaths[0]


@pytest.mark.slow
def test_real_lanes_settle_at_the_pool_batchs_end(tmp_path, build_cache):
    tasks = [load_task(HERE / "tasks" / name) for name in ("vec_scale", "sin_series")]
    items = [(task, task.serial_source(), "cpu") for task in tasks for _ in range(2)]
    with DevicePool.local(_config(tmp_path, build_cache), lanes_for("cpu", None, 2)) as pool:
        results = pool.evaluate_many(items)
        stats = pool.lane_stats
    assert all(r.status == "correct" for r in results), [r.message for r in results]
    for r in results:  # restated by the lane's close, not by its call
        assert r.seconds["serial_settle"] > 0 and "restated_from" in r.timings["serial"]
    assert sorted(stats["lanes"]) == ["cpu0", "cpu1"]
    assert all(lane["settle_s"] > 0 for lane in stats["lanes"].values())
