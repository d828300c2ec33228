"""Work sharing between a pool's lanes: an idle lane takes whole task groups another lane has not
started, a task's items stay in one call on one lane, the task's home moves with its group, the lane
that was sent the group's builds ahead is told to drop them, and nothing is lost when a lane that
took a group dies. Fake lanes stand in for the lane processes (their calls sleep as long as the
task's candidates would take); the last test runs real lanes on the cpu target."""

from __future__ import annotations

import dataclasses
import hashlib
import threading
import time
from dataclasses import dataclass

import pytest

from regrapht.eval import Evaluation, Evaluator
from regrapht.eval.devices import lanes_for
from regrapht.eval.lanes import LaneDied
from regrapht.eval.plan import item_cost
from regrapht.eval.pool import DevicePool, pool_config
from regrapht.eval.spread import CALL_SPARE_GROUPS, LOOKAHEAD, task_groups
from regrapht.tasks import load_task
from tests.eval.conftest import HERE, candidate, quick_config


@dataclass(frozen=True)
class FakeTask:
    id: str
    seconds: float  # per candidate
    build: float = 0.0  # the bench build's seconds its records report (0: none)
    reference: float = 0.0  # of its seconds, those its correctness references took

    @property
    def instance_key(self) -> str:
        return self.id

    def content_hash(self) -> str:
        return hashlib.sha1(self.id.encode()).hexdigest()


class TimedLane:
    """A lane whose calls take `seconds` per candidate; it records its calls and its posts, and dies
    (once) in a call that holds a task of `dies_on`."""

    def __init__(self, name: str, log: list, dies_on: frozenset[str] = frozenset()) -> None:
        self.name, self.log, self.dies_on, self.alive = name, log, set(dies_on), True
        self.lock = threading.Lock()

    def call(self, fn, *args):
        if fn.__name__ == "close_batch":  # the batch's end: these lanes time no serial baseline
            with self.lock:
                self.log.append(("close_batch", self.name, []))
            return []
        [items] = args
        with self.lock:
            self.log.append(("call", self.name, [task.id for task, _, _ in items]))
        if not self.alive or any(task.id in self.dies_on for task, _, _ in items):
            self.alive = False
            raise LaneDied(f"lane {self.name}: killed")
        time.sleep(sum(task.seconds for task, _, _ in items))
        return [
            Evaluation(task.id, target, "correct", "", hashlib.sha256(source.encode()).hexdigest(),
                       fingerprint={"lane": self.name},
                       seconds={"device_loop": task.seconds, "reference": task.reference,
                                **({"bench_build": task.build} if task.build else {})})
            for task, source, target in items
        ]

    def post(self, fn, *args):
        with self.lock:
            if not args:  # open_batch
                self.log.append((fn.__name__, self.name, []))
                return
            what = args[0]
            ids = sorted({(x[0] if isinstance(x, tuple) else x).id for x in (what if isinstance(what, list) else [what])})
            self.log.append((fn.__name__, self.name, ids))

    def close(self):
        pass


def _batch(tasks, per_task=2):
    return [(task, f"candidate {k} of {task.id}", "cpu") for task in tasks for k in range(per_task)]


def _slow_lane_zero():
    # The plan alternates equal groups between the lanes: t0, t2, t4 on l0 (slow), the rest on l1.
    return [FakeTask(f"t{i}", 0.5 if i % 2 == 0 else 0.005) for i in range(6)]


def test_task_groups_keep_each_tasks_items_together_in_order():
    keys = ["a", "b", "a", "c", "b"]
    assert task_groups([0, 1, 2, 3, 4], keys) == [[0, 2], [1, 4], [3]]
    assert task_groups([4, 3], keys) == [[4], [3]]


def test_an_idle_lane_takes_the_last_group_of_a_busy_one():
    tasks = _slow_lane_zero()
    log: list = []
    lanes = [TimedLane(f"l{i}", log) for i in range(2)]
    pool = DevicePool(pool_config(None, 2), lanes)
    items = _batch(tasks)
    results = pool.evaluate_many(items)
    assert [(r.task_id, r.candidate_sha256) for r in results] == [
        (task.id, hashlib.sha256(source.encode()).hexdigest()) for task, source, _ in items
    ]
    calls = [(lane, ids) for kind, lane, ids in log if kind == "call"]
    # One call per task group: a candidate and its task's other candidates never straddle lanes.
    assert sorted(tuple(ids) for _, ids in calls) == sorted((t.id, t.id) for t in tasks)
    where = {ids[0]: lane for lane, ids in calls}
    assert where["t4"] == "l1"  # the last group of the slow lane, taken by the idle one
    assert pool.taken == [("l1", "l0", "t4")]
    assert where["t0"] == "l0" and where["t2"] == "l0"
    assert {r.fingerprint["lane"] for r in results if r.task_id == "t4"} == {"l1"}
    # l0 was sent its first call's compiles and builds, then its next groups' ahead; told to drop
    # t4's once it was taken.
    assert ("warm", "l0", ["t0", "t2", "t4"]) in log and ("prefetch", "l0", ["t0", "t2", "t4"]) in log
    assert ("release", "l0", ["t4"]) in log
    # The task's home moved with its group: the next batch sends it where its bench data is.
    again = pool.evaluate_many(_batch([tasks[4], tasks[1]], 1))
    assert [r.fingerprint["lane"] for r in again] == ["l1", "l0"]


def test_a_group_is_not_taken_where_building_its_data_again_would_end_later():
    # l0 runs t0 (slow), then t2 and t4 (quick); l1's quick tasks end first. Records say a bench build
    # takes 5 s: l1 would finish t4 long after l0 does, so it leaves it (session 16: a lane that took
    # a group built ahead elsewhere waited 7.3 s to build it again).
    tasks = [FakeTask(f"t{i}", 0.3 if i == 0 else 0.02, build=5.0) for i in range(6)]
    log: list = []
    pool = DevicePool(pool_config(None, 2), [TimedLane(f"l{i}", log) for i in range(2)])
    pool.evaluate_many(_batch(tasks))
    # l1 was sent t4's build for a take as its queue ran short, a moment before it would take it:
    # most of the 5 s build is still to come, so it leaves t4, and drops its copy once l0 starts it.
    assert ("prefetch", "l1", ["t4"]) in log
    assert pool.taken == []
    where = {ids[0]: lane for kind, lane, ids in log if kind == "call"}
    assert [where[f"t{i}"] for i in (0, 2, 4)] == ["l0", "l0", "l0"]
    assert log.index(("release", "l1", ["t4"])) > log.index(("prefetch", "l1", ["t4"]))


def test_a_lane_with_a_short_queue_builds_ahead_the_group_it_would_take_and_then_takes_it():
    # Builds of 0.2 s: once l1's own queue is short it is sent t4's build (the last group of l0's
    # queue), which is done by the time l1 runs dry, so taking t4 costs it no build, and it does
    # (session 17: two takes on two H100s each waited 4.7-4.9 s for a build).
    tasks = [FakeTask(f"t{i}", 0.5 if i == 0 else 0.02, build=0.2) for i in range(6)]
    log: list = []
    pool = DevicePool(pool_config(None, 2), [TimedLane(f"l{i}", log) for i in range(2)])
    pool.evaluate_many(_batch(tasks))
    assert ("prefetch", "l1", ["t4"]) in log
    assert log.index(("prefetch", "l1", ["t4"])) < log.index(("call", "l1", ["t4", "t4"]))
    assert ("l1", "l0", "t4") in pool.taken
    assert ("release", "l0", ["t4"]) in log and ("release", "l1", ["t4"]) not in log


def test_data_built_ahead_for_a_group_the_lane_did_not_take_is_released_at_the_batchs_end():
    # l1 is sent t4's build while l0 still runs t0, but l0 reaches t4 itself: l1 drops its copy.
    seconds = {0: 0.05, 1: 0.01, 2: 0.005, 3: 0.3, 4: 0.005, 5: 0.3}
    tasks = [FakeTask(f"t{i}", seconds[i]) for i in range(6)]
    log: list = []
    pool = DevicePool(pool_config(None, 2), [TimedLane(f"l{i}", log) for i in range(2)])
    pool.evaluate_many(_batch(tasks))
    where = {ids[0]: lane for kind, lane, ids in log if kind == "call"}
    assert ("prefetch", "l1", ["t4"]) in log and where["t4"] == "l0"
    released = log.index(("release", "l1", ["t4"]))
    assert released < log.index(("close_batch", "l1", []))


class DiesAfterReturning(TimedLane):
    """Returns its first call's records, then its process is gone (a build ahead killed it)."""

    def call(self, fn, *args):
        out = super().call(fn, *args)
        if fn.__name__ != "close_batch":
            self.alive = False
        return out


def test_the_queue_of_a_lane_that_died_between_calls_is_taken_whatever_it_costs():
    tasks = [FakeTask(f"t{i}", 0.05, build=5.0) for i in range(6)]  # a build dearer than the groups
    log: list = []
    pool = DevicePool(pool_config(None, 2), [DiesAfterReturning("l0", log), TimedLane("l1", log)])
    results = pool.evaluate_many(_batch(tasks))
    assert len(results) == 12 and all(r.status == "correct" for r in results)
    assert sorted(task for _, _, task in pool.taken) == ["t2", "t4"]


def test_a_call_past_its_estimate_is_taken_to_need_as_long_again():
    # l0 runs t0 far slower than any call done so far says; its queued t2 and t4 go to l1, which
    # would otherwise wait for a call the estimate had already ended.
    tasks = [FakeTask(f"t{i}", {0: 0.6, 2: 0.15, 4: 0.15}.get(i, 0.005)) for i in range(6)]
    pool = DevicePool(pool_config(None, 2), [TimedLane(f"l{i}", []) for i in range(2)])
    began = time.perf_counter()
    pool.evaluate_many(_batch(tasks))
    assert sorted(task for _, _, task in pool.taken) == ["t2", "t4"]
    assert time.perf_counter() - began < 1.5  # l0's t0 alone: 1.2 s


def test_the_pool_learns_each_tasks_seconds_and_plans_the_next_batch_by_them():
    tasks = [FakeTask("slow", 0.06, reference=0.01)] + [FakeTask(f"quick_{c}", 0.02) for c in "abc"]
    log: list = []
    pool = DevicePool(pool_config(None, 2), [TimedLane(f"l{i}", log) for i in range(2)])
    pool.evaluate_many(_batch(tasks, 3))
    for task in tasks:  # less the correctness references: a cost of the task, not of each item
        assert pool.item_seconds(task) == (pytest.approx(task.seconds - task.reference), 3)
    log.clear()
    pool.evaluate_many(_batch(tasks, 3))
    # 0.18 s of slow against 3 x 0.06 s of quick ones: slow alone on a lane, by seconds, not by count.
    on = {}
    for kind, lane, ids in log:
        if kind == "call":
            on.setdefault(lane, set()).update(ids)
    assert sorted(map(sorted, on.values())) == [["quick_a", "quick_b", "quick_c"], ["slow"]]


def test_sharing_shortens_a_batch_whose_slow_tasks_share_a_lane():
    tasks = _slow_lane_zero()
    lanes = [TimedLane(f"l{i}", []) for i in range(2)]
    pool = DevicePool(pool_config(None, 2), lanes)
    began = time.perf_counter()
    pool.evaluate_many(_batch(tasks))
    wall = time.perf_counter() - began
    # Without sharing l0 runs three slow groups (3 s); with it, two (2 s) while l1 runs the third.
    assert wall < 2.8


def test_a_lanes_next_groups_are_sent_ahead_once_and_calls_pair_groups_while_enough_stay_queued():
    tasks = [FakeTask(f"t{i}", 0.005) for i in range(8)]
    log: list = []
    pool = DevicePool(pool_config(None, 1), [TimedLane("l0", log)])
    pool.evaluate_many(_batch(tasks, 1))
    calls = [ids for kind, _, ids in log if kind == "call"]
    # Two tasks a call while more than CALL_SPARE_GROUPS stay queued, then one.
    assert calls == [["t0", "t1"], ["t2", "t3"], ["t4", "t5"], ["t6"], ["t7"]]
    assert CALL_SPARE_GROUPS == 2
    warmed = [ids for kind, _, ids in log if kind == "warm"]
    # The first call's own groups first, then the next LOOKAHEAD; later, only the next ones.
    assert warmed[0] == ["t0", "t1", "t2", "t3"] and all(len(ids) <= LOOKAHEAD for ids in warmed[1:])
    assert sorted(i for ids in warmed for i in ids) == [t.id for t in tasks]  # each sent once
    for task in tasks:  # and before its call
        sent = next(k for k, entry in enumerate(log) if entry[0] == "warm" and task.id in entry[2])
        ran = next(k for k, entry in enumerate(log) if entry[0] == "call" and task.id in entry[2])
        assert sent < ran


def test_a_lane_that_dies_running_a_taken_group_loses_nothing():
    tasks = _slow_lane_zero()
    log: list = []
    lanes = [TimedLane("l0", log), TimedLane("l1", log, dies_on=frozenset({"t4"}))]
    pool = DevicePool(pool_config(None, 2), lanes)
    results = pool.evaluate_many(_batch(tasks))
    assert all(r.status == "correct" for r in results) and len(results) == 12
    assert len(pool.deaths) == 1 and "l1" in pool.deaths[0]
    # t4's candidates, lost with l1, ran again on l0 one at a time.
    assert [ids for kind, lane, ids in log if kind == "call" and lane == "l0" and "t4" in ids] == [["t4"], ["t4"]]
    assert {r.fingerprint["lane"] for r in results if r.task_id == "t4"} == {"l0"}


@pytest.mark.slow
def test_real_lanes_share_work_and_give_the_verdicts_of_one_evaluator(build_cache):
    """Four task groups over two cpu lanes (every test task that builds on the cpu target): whatever
    lane runs a group, the verdicts are those of one evaluator, and each task's records name one lane."""
    tasks = [load_task(HERE / "tasks" / name) for name in ("vec_scale", "vec_scale_host", "sin_series", "argmax_any")]
    config = quick_config(build_cache, timing=False, static_screen=False, symbol_screen=False)
    items = [(task, candidate("wrong.cpp") if task.id.startswith("vec") else task.serial_source(), "cpu")
             for task in tasks for _ in range(2)]
    with Evaluator(config) as one:
        alone = one.evaluate_many(items)
    with DevicePool.local(config, lanes_for("cpu", None, 2)) as pool:
        spread = pool.evaluate_many(items)
    assert [r.verdict_signature() for r in spread] == [r.verdict_signature() for r in alone]
    for task in tasks:
        assert len({r.fingerprint["lane"] for r in spread if r.task_id == task.id}) == 1


def test_an_items_cost_is_its_device_work_plus_the_pools_mean_overhead_less_its_tasks_one_time_costs():
    # Session 17's two-GPU warm-up, in shape: each task's first item ran while every bench build loaded
    # the host's cores, so the loop's whole seconds put saxpy (0.11 s of timed work) above
    # histogram_u8 (1.16 s); the plan built on them left one lane 10 s behind the other.
    first = {
        "saxpy": {"device_loop": 3.39, "worker": 0.6, "reference": 0.9, "inputs_offer_ahead": 0.36,
                  "judge_stage_ahead": 0.18, "bench_setup": 0.03, "inputs_copy": 0.002, "correctness": 0.05, "timing": 0.11},
        "histogram_u8": {"device_loop": 1.99, "worker": 1.4, "reference": 0.4, "bench_setup": 0.02,
                         "correctness": 0.02, "timing": 1.16},
        "broken": {"device_loop": 0.001},  # a compile error: no worker ran
    }
    assert item_cost(first["saxpy"]) == (pytest.approx(0.192), pytest.approx(3.39 - 1.44 - 0.192))
    assert item_cost(first["broken"]) == (pytest.approx(0.001), None)
    pool = DevicePool(pool_config(None, 2), [TimedLane(f"l{i}", []) for i in range(2)])
    for key, seconds in first.items():
        pool.learn(key, seconds)
    overhead = ((3.39 - 1.44 - 0.192) + (1.99 - 0.4 - 1.2)) / 2  # the median of two
    assert pool.item_s["saxpy"] == pytest.approx(0.192 + overhead)
    assert pool.item_s["histogram_u8"] == pytest.approx(1.2 + overhead)
    assert pool.item_s["histogram_u8"] > pool.item_s["saxpy"]
    assert pool.item_s["broken"] == pytest.approx(0.001)  # no worker: no overhead either
    # A later item of saxpy, uncontended, moves its mean work and the pool's overhead for every task.
    pool.learn("saxpy", {"device_loop": 0.5, "worker": 0.38, "bench_setup": 0.03, "correctness": 0.05, "timing": 0.11})
    overhead = 1.99 - 0.4 - 1.2  # the median of 1.758, 0.39 and 0.31
    assert pool.item_s["saxpy"] == pytest.approx((0.192 + 0.19) / 2 + overhead)
    assert pool.item_counts["saxpy"] == 2
    assert pool.item_s["histogram_u8"] == pytest.approx(1.2 + overhead)


def test_a_hung_candidate_costs_its_own_task_not_every_tasks_overhead():
    pool = DevicePool(pool_config(None, 2), [TimedLane(f"l{i}", []) for i in range(2)])
    for _ in range(10):
        pool.learn("small", {"device_loop": 0.325, "worker": 0.3, "correctness": 0.02, "timing": 0.1})
        pool.learn("big", {"device_loop": 1.475, "worker": 1.4, "correctness": 0.02, "timing": 1.25})
    before = pool.item_s["big"] / pool.item_s["small"]
    # Killed at its timeout before any timing: the whole minute is its task's, and no overhead moves.
    pool.learn("hangs", {"device_loop": 60.0, "worker": 60.0, "correctness": 0.01})
    assert pool.item_s["hangs"] == pytest.approx(60.0)
    assert pool.item_s["big"] / pool.item_s["small"] == pytest.approx(before)
    # Waits on the parent inside the bench setup are the task's build, not an item's work.
    work, overhead = item_cost({"device_loop": 3.0, "worker": 2.8, "bench_wait": 2.0, "judge_stage": 0.3,
                                "bench_setup": 2.4, "correctness": 0.05, "timing": 0.2})  # fmt: skip
    assert work == pytest.approx(0.35) and overhead == pytest.approx(0.35)


def test_with_three_lanes_one_lane_builds_a_group_for_a_take_and_the_next_another():
    # l0 is slow; l1 and l2 run dry early. Each is sent the builds of a different group of l0's queue.
    tasks = [FakeTask(f"t{i}", 0.3 if i == 0 else 0.01) for i in range(9)]
    log: list = []
    pool = DevicePool(pool_config(None, 3), [TimedLane(f"l{i}", log) for i in range(3)])
    results = pool.evaluate_many(_batch(tasks))
    assert len(results) == 18 and all(r.status == "correct" for r in results)
    for_a_take = sorted((ids[0], lane) for kind, lane, ids in log if kind == "prefetch" and lane != "l0" and ids[0] in {"t3", "t6"})  # fmt: skip
    assert [task for task, _ in for_a_take] == ["t3", "t6"]  # each built once, by one lane
    assert {lane for _, lane in for_a_take} == {"l1", "l2"}
    assert sorted((thief, task) for thief, _, task in pool.taken) == sorted((lane, task) for task, lane in for_a_take)


def test_a_build_sent_in_an_earlier_batch_makes_a_take_free():
    # Batch 1, all quick: each lane is sent the other's last group for a take, and takes none (a 5 s
    # build sent a moment before). Batch 2, t0 slow: l1 runs dry while l0 is on t0, and takes t4,
    # whose data it kept from batch 1 (session 17, call d: both takes found data built in the warm-up).
    tasks = [FakeTask(f"t{i}", 0.02, build=5.0) for i in range(6)]
    log: list = []
    pool = DevicePool(pool_config(None, 2), [TimedLane(f"l{i}", log) for i in range(2)])
    pool.evaluate_many(_batch(tasks))
    assert ("prefetch", "l1", ["t4"]) in log and pool.taken == []
    tasks[0] = dataclasses.replace(tasks[0], seconds=0.3)  # the same task, its candidates slower
    pool.evaluate_many(_batch(tasks))
    assert pool.taken == [("l1", "l0", "t4")]
