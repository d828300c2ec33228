"""A batch's end times its tasks' serial baselines at once, each pinned to a physical core of its own
(eval/settle.py): a timing that fails the spread rule on its own core is timed again alone, once every
pinned timing has ended, and records say which ran beside others. With serial_settle_lanes_at_once,
lanes pinned to cores of their own settle at the same time through shared slots; others, and every
lane by default, one after another."""

from __future__ import annotations

import contextlib
import hashlib
import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from regrapht.eval import Evaluation, Evaluator, cpu_meter
from regrapht.eval.lanes import LaneDied
from regrapht.eval.oracle import ReferenceError
from regrapht.eval.pool import DevicePool, pool_config
from regrapht.eval.serial_baselines import SerialBaseline, SerialBaselineStore
from regrapht.eval.settle import HostSlots, SettleLock, pinned_problem, settle_tasks, share_physical_cores
from regrapht.tasks import load_task
from tests.eval.conftest import HERE, candidate, quick_config


# ---- the settle's schedule, with a stand-in oracle ---------------------------------------------------
@dataclass
class FakeBench:
    serial: dict = field(default_factory=dict)
    serial_samples: list = field(default_factory=list)


@dataclass
class FakeTask:
    id: str


class FakeOracle:
    """Times each task in `seconds`; `samples[task]` are its pinned samples (a tight set by default),
    `background[task]` the load on its core; logs every timing's span and core."""

    def __init__(self, samples=None, background=None, broken=(), seconds=0.2):
        self.samples, self.background, self.broken, self.seconds = samples or {}, background or {}, set(broken), seconds
        self.log: list[tuple[str, str, int | None, int, float, float]] = []  # kind, task, cpu, beside, began, ended
        self.kept: list[str] = []
        self.checks: dict[str, list[float]] = {}
        self.lock = threading.Lock()

    def _span(self, kind, task, cpu, beside):
        began = time.monotonic()
        time.sleep(self.seconds)
        with self.lock:
            self.log.append((kind, task.id, cpu, beside, began, time.monotonic()))

    def time_pinned(self, task, bench, cpu, beside):
        self._span("pinned", task, cpu, beside)
        if task.id in self.broken:
            raise ReferenceError(f"task {task.id}: the serial reference failed")
        return SerialBaseline(
            list(self.samples.get(task.id, [1.0, 1.001, 0.999, 1.0, 1.0005])),
            quiet=True,
            background_cores=self.background.get(task.id, 0.0),
            concurrent=beside,
        )

    def keep_settled(self, task, bench, baseline):
        self.kept.append(task.id)
        bench.serial = baseline.to_record()

    def time_check(self, task, bench):
        self._span("check", task, None, 0)
        samples = self.checks.get(task.id, [1.0, 1.0, 1.0005])
        return SerialBaseline(list(samples), quiet=True, background_cores=0.0)

    def settle(self, task, bench):
        self._span("alone", task, None, 0)
        bench.serial = {"source": "measured", "concurrent": 0}
        return True


def _items(n):
    return [(FakeTask(f"t{k}"), FakeBench()) for k in range(n)]


def test_pinned_timings_run_at_once_each_on_a_core_of_its_own():
    oracle, items = FakeOracle(), _items(4)
    out = settle_tasks(items, oracle, [0, 2, 4], max_median_error=0.01, max_background=0.5)
    assert all(ok for ok, _ in out) and all(seconds >= 0.2 for _, seconds in out)
    assert sorted(oracle.kept) == ["t0", "t1", "t2", "t3"]
    pinned = [entry for entry in oracle.log if entry[0] == "pinned"]
    assert len(pinned) == 4 and not [e for e in oracle.log if e[0] == "alone"]
    assert {e[3] for e in pinned} == {2}  # each ran beside two others
    # At every moment, no two timings share a core, and three run at once (four tasks on three cores).
    for a in pinned:
        overlapping = [b for b in pinned if b is not a and b[4] < a[5] and a[4] < b[5]]
        assert a[2] not in {b[2] for b in overlapping}
    assert max(sum(1 for b in pinned if b[4] <= a[4] < b[5]) for a in pinned) == 3
    assert all(bench.serial["concurrent"] == 2 for _, bench in items)


@pytest.mark.parametrize(
    "samples, background, phrase",
    [
        ({"t1": [1.0, 1.2, 0.8, 1.1, 0.9]}, {}, "median is known to"),
        ({}, {"t1": 0.9}, "on its own physical core"),
        ({}, {"t1": None}, "could not be measured"),
        ({"t1": [1.0, 1.0]}, {}, "fewer than 3"),
    ],
)
def test_a_pinned_timing_that_fails_the_rule_is_timed_again_alone_after_every_pinned_one(samples, background, phrase):
    oracle, items = FakeOracle(samples, background), _items(3)
    out = settle_tasks(items, oracle, [0, 1, 2], max_median_error=0.01, max_background=0.5)
    assert [ok for ok, _ in out] == [True, True, True]
    assert sorted(oracle.kept) == ["t0", "t2"]  # the rejected one never reached the store
    [alone] = [e for e in oracle.log if e[0] == "alone"]
    assert alone[1] == "t1"
    assert alone[4] >= max(e[5] for e in oracle.log if e[0] == "pinned")  # alone: every pinned one had ended
    assert phrase in items[1][1].serial["pinned_rejected"] and items[1][1].serial["concurrent"] == 0
    assert out[1][1] >= 0.4  # its pinned timing and its alone one
    assert "pinned_rejected" not in items[0][1].serial


def test_with_the_check_a_pinned_median_that_disagrees_alone_is_timed_again_alone():
    oracle, items = FakeOracle(), _items(3)
    oracle.checks = {"t2": [1.05, 1.05, 1.0502]}  # 5% slower alone: the pinned ones were not alike
    out = settle_tasks(items, oracle, [0, 1, 2], max_median_error=0.01, max_background=0.5, check=True)
    assert [ok for ok, _ in out] == [True, True, True] and sorted(oracle.kept) == ["t0", "t1"]
    kinds = [e[0] for e in sorted(oracle.log, key=lambda e: e[4])]
    assert kinds == ["pinned"] * 3 + ["check"] * 3 + ["alone"]  # checks and re-times after every pinned one
    assert "short alone check" in items[2][1].serial["pinned_rejected"]
    assert items[0][1].serial["checked_alone"] is True and items[0][1].serial["concurrent"] == 2
    assert out[0][1] >= 0.4 and out[2][1] >= 0.6  # pinned + check (+ alone)


def test_without_the_check_no_alone_timing_runs_for_a_pinned_timing_that_passes():
    oracle, items = FakeOracle(), _items(2)
    oracle.checks = {"t0": [2.0, 2.0, 2.0]}
    settle_tasks(items, oracle, [0, 1], max_median_error=0.01, max_background=0.5)
    assert {e[0] for e in oracle.log} == {"pinned"} and items[0][1].serial["checked_alone"] is False


def test_a_broken_reference_is_not_settled_and_the_others_are():
    oracle, items = FakeOracle(broken={"t0"}), _items(2)
    out = settle_tasks(items, oracle, [0, 1], max_median_error=0.01, max_background=0.5)
    assert [ok for ok, _ in out] == [False, True] and oracle.kept == ["t1"]
    assert not [e for e in oracle.log if e[0] == "alone"]


@pytest.mark.parametrize("cores, tasks", [([0], 3), ([0, 1], 1)])
def test_one_core_or_one_task_settles_alone_one_after_another(cores, tasks):
    oracle, items = FakeOracle(), _items(tasks)
    out = settle_tasks(items, oracle, cores, max_median_error=0.01, max_background=0.5)
    assert all(ok for ok, _ in out) and [e[0] for e in oracle.log] == ["alone"] * tasks
    spans = sorted(oracle.log, key=lambda e: e[4])
    assert all(a[5] <= b[4] for a, b in zip(spans, spans[1:]))


def test_the_rule_for_a_pinned_timing_allows_the_pooled_exception_only_beside_few_others():
    noisy = SerialBaseline([1.0, 1.2, 0.8, 1.1, 0.9], quiet=True, background_cores=0.0, timings=3, concurrent=3)
    assert noisy.problem(0.01, 0.5) is None  # alone, three pooled runs are kept whatever their spread
    assert "median is known to" in (pinned_problem(noisy, 0.01, 0.5) or "")
    assert "median is known to" in (pinned_problem(noisy, 0.01, 0.5, pool_beside=2) or "")
    assert pinned_problem(noisy, 0.01, 0.5, pool_beside=3) is None
    one_run = SerialBaseline([1.0, 1.2, 0.8, 1.1, 0.9], quiet=True, background_cores=0.0, timings=1, concurrent=1)
    assert "median is known to" in (pinned_problem(one_run, 0.01, 0.5, pool_beside=1) or "")  # a pool, not one run
    assert pinned_problem(SerialBaseline([1.0, 1.0, 1.0], True, 0.1, concurrent=1), 0.01, 0.5) is None


def _slots(tmp_path, home=(0,), count=2):
    """A lane's share of a batch's slots (the other lane holds the rest), as the pool hands it out."""
    folder = tmp_path / "slots"
    folder.mkdir(exist_ok=True)
    return HostSlots(folder, count, list(home))


def test_one_core_beside_another_lane_times_pinned_and_keeps_a_pool_of_runs(tmp_path):
    oracle, items = FakeOracle({"t1": [1.0, 1.2, 0.8, 1.1, 0.9]}), _items(2)
    real = oracle.time_pinned

    def pooled(task, bench, cpu, beside):
        baseline = real(task, bench, cpu, beside)
        baseline.timings = 3  # what Oracle.time_pinned pools when a run does not pin its median
        return baseline

    oracle.time_pinned = pooled
    out = settle_tasks(items, oracle, [7], max_median_error=0.01, max_background=0.5, pool_beside=1, slots=_slots(tmp_path))
    assert [ok for ok, _ in out] == [True, True] and sorted(oracle.kept) == ["t0", "t1"]
    assert [(e[0], e[2], e[3]) for e in oracle.log] == [("pinned", 7, 1)] * 2  # one at a time, beside the other lane's
    oracle2, items2 = FakeOracle({"t1": [1.0, 1.2, 0.8, 1.1, 0.9]}), _items(2)
    oracle2.time_pinned = lambda task, bench, cpu, beside: (lambda b: (setattr(b, "timings", 3), b)[1])(
        FakeOracle.time_pinned(oracle2, task, bench, cpu, beside)
    )
    settle_tasks(items2, oracle2, [7], max_median_error=0.01, max_background=0.5, pool_beside=0, slots=_slots(tmp_path))
    assert oracle2.kept == ["t0"] and [e[1] for e in oracle2.log if e[0] == "alone"] == ["t1"]


def test_the_longest_serial_reference_is_timed_first(tmp_path):
    oracle, items = FakeOracle(seconds=0.05), _items(3)
    for (_, bench), guess in zip(items, [0.1, 3.0, 1.0]):
        bench.serial_samples = [guess] * 3
    settle_tasks(items, oracle, [5], 0.01, 0.5, slots=_slots(tmp_path, count=1))  # one core, one slot: in order
    assert [e[1] for e in sorted(oracle.log, key=lambda e: e[4])] == ["t1", "t2", "t0"]


def _settle_lane(path, items, oracle, cores, slots, out):
    out.append(settle_tasks(items, oracle, cores, 0.01, 0.5, lock=SettleLock(path), slots=slots))


def test_a_lanes_alone_retime_never_runs_beside_another_lanes_pinned_timings(tmp_path):
    lock = tmp_path / "settle.lock"
    noisy = FakeOracle({"t0": [1.0, 1.2, 0.8, 1.1, 0.9]}, seconds=0.15)  # lane A: rejected, timed again alone
    busy = FakeOracle(seconds=0.15)  # lane B: four pinned timings on one core
    a_items, b_items, out = _items(1), [(FakeTask(f"b{k}"), FakeBench()) for k in range(4)], []
    threads = [
        threading.Thread(target=_settle_lane, args=(lock, a_items, noisy, [0], _slots(tmp_path, [0]), out)),
        threading.Thread(target=_settle_lane, args=(lock, b_items, busy, [1], _slots(tmp_path, [1]), out)),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(out) == 2 and all(ok for result in out for ok, _ in result)
    [alone] = [e for e in noisy.log if e[0] == "alone"]
    pinned_b = [e for e in busy.log if e[0] == "pinned"]
    assert len(pinned_b) == 4
    assert not [b for b in pinned_b if b[4] < alone[5] and alone[4] < b[5]]  # no overlap
    # The first pinned timings did run side by side: the lanes settle at once.
    first_a = next(e for e in noisy.log if e[0] == "pinned")
    assert any(b[4] < first_a[5] and first_a[4] < b[5] for b in pinned_b)


def test_the_settle_lock_lets_shared_holds_meet_and_keeps_an_exclusive_one_apart(tmp_path):
    lock, events = SettleLock(tmp_path / "l"), []

    def hold(kind, seconds):
        with (lock.shared() if kind == "shared" else lock.exclusive()):
            events.append((kind, "in", time.monotonic()))
            time.sleep(seconds)
            events.append((kind, "out", time.monotonic()))

    with lock.shared():
        other = threading.Thread(target=hold, args=("shared", 0.0))
        other.start()
        other.join(timeout=2.0)
        assert not other.is_alive()  # a second shared hold did not wait
        writer = threading.Thread(target=hold, args=("exclusive", 0.0))
        writer.start()
        time.sleep(0.2)
        assert [e for e in events if e[0] == "exclusive"] == []  # waits while a shared hold lasts
    writer.join(timeout=2.0)
    assert [e[:2] for e in events if e[0] == "exclusive"] == [("exclusive", "in"), ("exclusive", "out")]
    assert SettleLock(tmp_path / "l").usable() and not SettleLock(tmp_path / "missing" / "dir" / "l").usable()


# ---- cores and their load ------------------------------------------------------------------------------
def test_one_logical_cpu_per_physical_core(monkeypatch):
    siblings = {0: {0, 4}, 1: {1, 5}, 2: {2, 6}, 3: {3, 7}, 4: {0, 4}, 5: {1, 5}, 6: {2, 6}, 7: {3, 7}}
    monkeypatch.setattr(cpu_meter, "core_siblings", lambda cpu: frozenset(siblings[cpu]))
    assert cpu_meter.one_per_core({0, 1, 2, 3, 4, 5, 6, 7}) == [0, 1, 2, 3]
    assert cpu_meter.one_per_core({4, 5, 2}) == [2, 4, 5]
    assert cpu_meter.one_per_core(set()) == []


def test_busy_ticks_of_some_cores_are_part_of_all_cores():
    cpus = sorted(os.sched_getaffinity(0))
    total, one = cpu_meter.busy_ticks(), cpu_meter.busy_ticks(frozenset(cpus[:1]))
    assert total is not None and one is not None and 0 <= one <= total
    assert cpu_meter.busy_ticks(frozenset({10**6})) is None  # names no CPU of this host
    assert cpu_meter.core_siblings(cpus[0]) >= {cpus[0]}


def test_a_core_meter_counts_that_core_only():
    cpu = sorted(os.sched_getaffinity(0))[0]
    meter = cpu_meter.BackgroundMeter(os.getpid(), frozenset({cpu}))
    end = time.monotonic() + 0.3
    while time.monotonic() < end:
        pass  # this process's own work is never background
    cores = meter.cores(min_window_s=0.2)
    assert cores is not None and 0.0 <= cores <= 1.0


# ---- with the evaluator (cpu target, real reference processes) ---------------------------------------------
def _config(tmp_path: Path, build_cache: Path, **timing):
    config = quick_config(build_cache, serial_store=str(tmp_path / "baselines.sqlite"))
    config.timing_config.serial_max_median_error = 1e9
    config.timing_config.serial_max_background = 1e9  # the shared test machine's load must not decide
    for key, value in timing.items():
        setattr(config.timing_config, key, value)
    return config


@pytest.mark.skipif(len(cpu_meter.one_per_core(set(os.sched_getaffinity(0)))) < 2, reason="needs two physical cores")
def test_a_batchs_end_times_its_tasks_pinned_at_once_and_records_it(tmp_path, build_cache, monkeypatch):
    import regrapht.eval.oracle as oracle_module

    pinned: list[tuple[int, int, frozenset[int]]] = []
    real_pin = oracle_module.pin

    def watched(pid, cpu):
        ok = real_pin(pid, cpu)
        pinned.append((pid, cpu, frozenset(os.sched_getaffinity(pid)) if ok else frozenset()))
        return ok

    monkeypatch.setattr(oracle_module, "pin", watched)
    tasks = [load_task(HERE / "tasks" / name) for name in ("vec_scale", "vec_scale_host")]
    items = [(task, candidate("correct.cpp") + f"\n// {k}\n", "cpu") for task in tasks for k in range(2)]
    config = _config(tmp_path, build_cache, serial_settle_width=0)
    with Evaluator(config) as evaluator:
        results = evaluator.evaluate_many(items)
    assert len(pinned) >= 2 and all(affinity == {cpu} for _, cpu, affinity in pinned)
    assert len({cpu for _, cpu, _ in pinned}) == 2  # each task on a core of its own
    for r in results:
        assert r.status == "correct", r.message
        serial = r.timings["serial"]
        assert serial["concurrent"] == 1 and "pinned_rejected" not in serial
        assert serial["restated_from"]["quiet"] is False and r.seconds["serial_settle"] > 0
    # One span for the batch's end (its wall time), shorter than the tasks' settles summed: they overlapped.
    [span] = {tuple(r.timings["serial"]["settle_span"].values()) for r in results}
    assert span[2] == 2 and span[1] - span[0] < sum({r.task_id: r.seconds["serial_settle"] for r in results}.values())
    store = SerialBaselineStore(tmp_path / "baselines.sqlite")
    try:
        kept = [store.get(r.timings["serial"]["baseline_key"]) for r in results]
        row = store.store.query_one("SELECT COUNT(*) AS n, MIN(concurrent) AS c FROM serial_baselines")
    finally:
        store.close()
    assert kept is not None and row["n"] == 2 and row["c"] == 1  # the store says they ran beside another


def test_a_width_of_one_settles_alone_as_before(tmp_path, build_cache, monkeypatch):
    import regrapht.eval.oracle as oracle_module

    monkeypatch.setattr(oracle_module, "pin", lambda pid, cpu: pytest.fail("pinned with a width of one"))
    tasks = [load_task(HERE / "tasks" / name) for name in ("vec_scale", "vec_scale_host")]
    items = [(task, candidate("correct.cpp"), "cpu") for task in tasks]
    with Evaluator(_config(tmp_path, build_cache, serial_settle_width=1)) as evaluator:
        results = evaluator.evaluate_many(items)
    for r in results:
        assert r.status == "correct", r.message
        assert r.timings["serial"]["concurrent"] == 0 and r.seconds["serial_settle"] > 0


# ---- a pool's lanes settle at once where their cores are their own -----------------------------------------
@dataclass
class Spec:
    cores: tuple[int, ...]


class SettlingLane:
    """A lane whose close_batch waits for every other lane's to start (a barrier): it returns only
    where the lanes settle at once."""

    def __init__(self, name, cores, barrier, log, dies_at_close=False):
        self.name, self.spec, self.barrier, self.log = name, Spec(cores), barrier, log
        self.alive, self.gpu, self.dies_at_close = True, None, dies_at_close

    def call(self, fn, *args):
        if fn.__name__ == "close_batch":
            if args:
                self.log.append(("cores", self.name, args[0]))
                self.log.append(("slots", self.name, args[1]))
            self.log.append(("close_start", self.name, time.monotonic()))
            with contextlib.suppress(threading.BrokenBarrierError):
                self.barrier.wait()
            time.sleep(0.05)  # the settle's own timings
            self.log.append(("close_end", self.name, time.monotonic()))
            if self.dies_at_close:
                self.alive = False
                raise LaneDied(f"lane {self.name}: killed while settling")
            return [(0, Evaluation("restated", "cpu", "correct", "", "", fingerprint={"lane": self.name}))]
        [items] = args
        return [
            Evaluation(task.id, target, "correct", "", hashlib.sha256(source.encode()).hexdigest())
            for task, source, target in items
        ]

    def post(self, fn, *args):
        pass

    def close(self):
        pass


def _pool_items():
    tasks = [load_task(HERE / "tasks" / name) for name in ("vec_scale", "sin_series")]
    return [(task, f"candidate {k} of {task.id}", "cpu") for task in tasks for k in range(2)]


def _run_pool(cores, width=0, dies=False, check=False, at_once=True):
    log: list = []
    barrier = threading.Barrier(2, timeout=2.0)
    lanes = [SettlingLane("l0", cores[0], barrier, log, dies_at_close=dies), SettlingLane("l1", cores[1], barrier, log)]
    config = pool_config(None, 2)
    config.timing_config.serial_settle_width = width
    config.timing_config.serial_settle_check = check
    config.timing_config.serial_settle_lanes_at_once = at_once
    pool = DevicePool(config, lanes)
    results = pool.evaluate_many(_pool_items())
    return pool, results, log


def test_lanes_on_cores_of_their_own_settle_at_once(monkeypatch):
    import regrapht.eval.settle as settle_module

    monkeypatch.setattr(settle_module, "core_siblings", lambda cpu: frozenset({cpu}))  # no SMT
    pool, results, log = _run_pool([(0, 1), (2, 3)])
    starts = [t for kind, _, t in log if kind == "close_start"]
    assert {name: cores for kind, name, cores in log if kind == "cores"} == {"l0": [0, 1], "l1": [2, 3]}
    ends = [t for kind, _, t in log if kind == "close_end"]
    assert len(starts) == 2 and max(starts) < min(ends)  # both settles were under way together
    assert [r.task_id for r in results] == ["restated", "vec_scale", "restated", "sin_series"]
    assert all(lane["settle_s"] > 0 for lane in pool.lane_stats["lanes"].values())


@pytest.mark.parametrize("width, check, others", [(1, False, 1), (0, True, 2), (2, False, 2)])
def test_lanes_settle_at_once_with_any_width_and_with_checks_each_told_the_others_timings(monkeypatch, width, check, others):
    import regrapht.eval.settle as settle_module

    monkeypatch.setattr(settle_module, "core_siblings", lambda cpu: frozenset({cpu}))  # no SMT
    _, results, log = _run_pool([(0, 1), (2, 3)], width, check=check)
    starts = [t for kind, _, t in log if kind == "close_start"]
    ends = [t for kind, _, t in log if kind == "close_end"]
    assert len(starts) == 2 and max(starts) < min(ends)
    specs = {name: spec for kind, name, spec in log if kind == "slots"}
    [folder] = {spec["folder"] for spec in specs.values()}  # one folder for the lanes, gone after
    assert not Path(folder).exists()
    assert all(spec["count"] == 2 * others and len(spec["home"]) == others for spec in specs.values())  # symmetric lanes
    assert sorted(k for spec in specs.values() for k in spec["home"]) == list(range(specs["l0"]["count"]))
    assert [r.task_id for r in results] == ["restated", "vec_scale", "restated", "sin_series"]


@pytest.mark.parametrize(
    "cores, at_once",
    [([(0, 1), (1, 2)], True), ([(0, 1), ()], True), ([(0, 1), (2, 3)], False)],
)
def test_lanes_sharing_cores_unpinned_or_told_not_to_close_one_after_another(cores, at_once):
    pool, results, log = _run_pool(cores, 0, at_once=at_once)
    order = [kind for kind, _, _ in log]
    assert order == ["close_start", "close_end", "close_start", "close_end"]  # the barrier broke: one at a time
    assert [r.task_id for r in results] == ["restated", "vec_scale", "restated", "sin_series"]


def test_physical_cores_are_divided_between_lanes_whose_shares_split_smt_siblings(monkeypatch):
    import regrapht.eval.settle as settle_module

    monkeypatch.setattr(settle_module, "core_siblings", lambda cpu: frozenset({cpu % 4, cpu % 4 + 4}))
    # Cores 4-7 are 0-3's siblings: four physical cores for two lanes, two each, never one twice.
    assert share_physical_cores([{0, 1, 2, 3}, {4, 5, 6, 7}]) == [[0, 2], [5, 7]]
    assert share_physical_cores([{0, 4}, {1, 5}]) == [[0], [1]]  # each lane has whole cores
    assert share_physical_cores([{0, 1, 4, 5}, {2, 3}]) == [[0, 1], [2, 3]]


def test_lanes_whose_shares_split_smt_siblings_settle_at_once_on_cores_of_their_own(monkeypatch):
    import regrapht.eval.settle as settle_module

    monkeypatch.setattr(settle_module, "core_siblings", lambda cpu: frozenset({cpu % 4, cpu % 4 + 4}))
    _, results, log = _run_pool([(0, 1, 2, 3), (4, 5, 6, 7)])
    assert [kind for kind, _, _ in log if kind.startswith("close")][:2] == ["close_start", "close_start"]
    given = {name: cores for kind, name, cores in log if kind == "cores"}
    assert given == {"l0": [0, 2], "l1": [5, 7]}
    assert [r.task_id for r in results] == ["restated", "vec_scale", "restated", "sin_series"]


def test_a_lane_that_dies_while_the_lanes_settle_at_once_keeps_its_records():
    pool, results, _ = _run_pool([(0, 1), (2, 3)], dies=True)
    assert [r.task_id for r in results] == ["vec_scale", "vec_scale", "restated", "sin_series"]
    assert len(pool.deaths) == 1 and "l0" in pool.deaths[0]


def test_a_store_from_before_the_settle_at_once_reads_as_timed_alone(tmp_path):
    from regrapht.eval import serial_baselines
    from regrapht.store import RunStore, Schema

    path = tmp_path / "baselines.sqlite"
    old = RunStore(path, schemas=[Schema("eval_serial_baselines", serial_baselines.SCHEMA.migrations[:2])])
    with old.transaction() as conn:
        conn.execute(
            "INSERT INTO serial_baselines (key, task_id, fields_json, samples_json, median_s, rel_iqr, n, quiet,"
            " background_cores, measured_at) VALUES ('k', 't', '{}', '[1.0, 1.0, 1.0]', 1.0, 0.0, 3, 1, 0.0, 'then')"
        )
    old.close()
    store = SerialBaselineStore(path)
    try:
        kept = store.get("k")
        assert kept is not None and kept.concurrent == 0 and kept.samples == [1.0, 1.0, 1.0]
        fresh = SerialBaseline([2.0, 2.0, 2.0], True, 0.0, concurrent=3)
        assert store.put("k2", {"task": "t"}, fresh) and store.get("k2").concurrent == 3
    finally:
        store.close()


def test_a_lane_settles_on_the_cores_the_pool_gives_it(tmp_path, build_cache):
    from regrapht.eval.devices import LaneSpec
    from regrapht.eval.lanes import LaneState, close_batch, evaluate_batch, open_batch

    tasks = [load_task(HERE / "tasks" / name) for name in ("vec_scale", "vec_scale_host")]
    state = LaneState(LaneSpec("cpu0"), _config(tmp_path, build_cache, serial_settle_width=0))
    try:
        open_batch(state)
        evaluate_batch(state, [(task, candidate("correct.cpp"), "cpu") for task in tasks])
        first = sorted(os.sched_getaffinity(0))[0]
        restated = close_batch(state, [first])  # one core: its two tasks one after another, alone
    finally:
        state.close()
    assert [place for place, _ in restated] == [0, 1]
    assert all(r.timings["serial"]["concurrent"] == 0 and r.seconds["serial_settle"] > 0 for _, r in restated)


def _two_lanes(tmp_path, a, b, delay_a=0.0):
    """Two lanes' settles at once through two slots (one each): `a` and `b` are (items, oracle, cores)."""
    folder = tmp_path / "slots"
    folder.mkdir(exist_ok=True)
    out = {}

    def lane(name, items, oracle, cores, home, delay):
        time.sleep(delay)
        slots = HostSlots(folder, 2, home)
        out[name] = settle_tasks(items, oracle, cores, 0.01, 0.5, lock=SettleLock(folder / "l"), slots=slots)

    threads = [
        threading.Thread(target=lane, args=("a", *a, [0], delay_a)),
        threading.Thread(target=lane, args=("b", *b, [1], 0.0)),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return out


def test_host_slots_let_a_lane_time_more_at_once_once_the_other_lane_is_done(tmp_path):
    quick, busy = FakeOracle(seconds=0.1), FakeOracle(seconds=0.3)
    b_items = [(FakeTask(f"b{k}"), FakeBench()) for k in range(5)]
    out = _two_lanes(tmp_path, (_items(1), quick, [0, 1]), (b_items, busy, [2, 3]))
    assert all(ok for result in out.values() for ok, _ in result)
    spans = [e for e in quick.log + busy.log if e[0] == "pinned"]
    assert {e[3] for e in spans} == {1}  # every timing counts the other slot as beside it
    at_once = max(sum(1 for b in spans if b[4] <= a[4] < b[5]) for a in spans)
    assert at_once == 2  # never more than the two slots, whichever lanes hold them
    a_end = quick.log[0][5]
    b_after = [e for e in busy.log if e[4] >= a_end]
    # Once lane A was done, lane B timed two at once on its two cores (A's slot was lent).
    assert any(sum(1 for o in b_after if o[4] <= e[4] < o[5]) == 2 for e in b_after)


def test_a_lane_never_waits_on_another_lanes_queue_for_its_own_slot(tmp_path):
    busy, late = FakeOracle(seconds=0.15), FakeOracle(seconds=0.05)
    b_items = [(FakeTask(f"b{k}"), FakeBench()) for k in range(8)]
    # Lane B starts first with eight tasks and two cores; lane A arrives 0.1 s later with one task.
    out = _two_lanes(tmp_path, (_items(1), late, [0, 1]), (b_items, busy, [2, 3]), delay_a=0.1)
    assert all(ok for result in out.values() for ok, _ in result)
    b_spans = [e for e in busy.log if e[0] == "pinned"]
    assert late.log[0][4] < max(e[5] for e in b_spans)  # A did not wait for B's whole queue
    # B never held two slots before A had lent its own.
    a_end = late.log[0][5]
    before = [e for e in b_spans if e[4] < a_end]
    assert max(sum(1 for o in before if o[4] <= e[4] < o[5]) for e in before) == 1


def test_a_pooled_pinned_timing_beside_one_other_is_kept_in_the_store(tmp_path):
    from regrapht.eval.serial_baselines import keep_or_pool

    store = SerialBaselineStore(tmp_path / "baselines.sqlite")
    try:
        noisy = SerialBaseline([1.0, 1.2, 0.8, 1.1, 0.9] * 3, quiet=True, background_cores=0.0, timings=3, concurrent=1)
        assert pinned_problem(noisy, 0.01, 0.5, pool_beside=1) is None
        keep_or_pool(store, "k", {"task": "t"}, noisy, 0.01, 0.5)
        kept = store.get("k")
        assert noisy.not_kept == "" and kept is not None
        assert kept.timings == 3 and kept.concurrent == 1 and len(kept.samples) == 15
    finally:
        store.close()


def test_a_lane_beside_another_times_its_tasks_pinned_through_the_host_slots(tmp_path, build_cache, monkeypatch):
    import regrapht.eval.oracle as oracle_module
    from regrapht.eval.devices import LaneSpec
    from regrapht.eval.lanes import LaneState, close_batch, evaluate_batch, open_batch

    pinned: list[int] = []
    real_pin = oracle_module.pin
    monkeypatch.setattr(oracle_module, "pin", lambda pid, cpu: pinned.append(cpu) or real_pin(pid, cpu))
    tasks = [load_task(HERE / "tasks" / name) for name in ("vec_scale", "vec_scale_host")]
    state = LaneState(LaneSpec("cpu0"), _config(tmp_path, build_cache))  # width 1, the default
    try:
        open_batch(state)
        evaluate_batch(state, [(task, candidate("correct.cpp"), "cpu") for task in tasks])
        first = sorted(os.sched_getaffinity(0))[0]
        folder = tmp_path / "slots"
        folder.mkdir()
        spec = {"folder": str(folder), "count": 2, "home": [0], "lock": str(folder / "l")}
        restated = close_batch(state, [first], spec)
    finally:
        state.close()
    assert [place for place, _ in restated] == [0, 1]
    assert pinned and set(pinned) == {first}
    for _, r in restated:
        assert r.timings["serial"]["concurrent"] == 1 and "pinned_rejected" not in r.timings["serial"]
    assert sorted(p.name for p in (tmp_path / "slots").iterdir()) == ["l", "lent-0", "slot-0", "slot-1"]


def test_a_wait_for_a_slot_is_not_counted_as_the_timings_seconds(tmp_path):
    (tmp_path / "slots").mkdir()
    oracle, items = FakeOracle(seconds=0.3), _items(2)
    slots = HostSlots(tmp_path / "slots", 1, [0])  # one slot, two cores: the second timing waits 0.3 s
    out = settle_tasks(items, oracle, [0, 1], 0.01, 0.5, lock=SettleLock(tmp_path / "l"), slots=slots)
    spans = sorted(oracle.log, key=lambda e: e[4])
    assert spans[1][4] >= spans[0][5] - 0.01  # one after another: it did wait
    assert all(seconds < 0.55 for _, seconds in out)  # 0.3 s each, not 0.6 for the one that waited
    assert (tmp_path / "slots" / "lent-0").exists()  # its pinned timings done, the slot is lent


def test_lanes_settle_one_after_another_unless_asked():
    from regrapht.eval import TimingConfig

    assert TimingConfig().serial_settle_lanes_at_once is False  # biased on an H100 host (session 15)


def test_a_single_evaluators_pinned_timings_never_get_the_pooled_exception():
    oracle, items = FakeOracle({"t0": [1.0, 1.2, 0.8, 1.1, 0.9], "t1": [1.0, 1.2, 0.8, 1.1, 0.9]}), _items(2)
    real = oracle.time_pinned

    def pooled(task, bench, cpu, beside):
        baseline = real(task, bench, cpu, beside)
        baseline.timings = 3
        return baseline

    oracle.time_pinned = pooled
    # Two cores, no other lane: each pinned timing has one beside it, its own lane's.
    settle_tasks(items, oracle, [0, 1], max_median_error=0.01, max_background=0.5, pool_beside=0)
    assert oracle.kept == [] and sorted(e[1] for e in oracle.log if e[0] == "alone") == ["t0", "t1"]


def test_a_lane_with_nothing_to_settle_lends_its_slot(monkeypatch, tmp_path):
    import regrapht.eval.settle as settle_module

    monkeypatch.setattr(settle_module, "core_siblings", lambda cpu: frozenset({cpu}))

    class EmptyLane(SettlingLane):
        def call(self, fn, *args):
            if fn.__name__ == "close_batch":
                self.log.append(("slots", self.name, args[1]))
                return []  # nothing was unsettled: settle_tasks never ran
            return super().call(fn, *args)

    log: list = []
    barrier = threading.Barrier(2, timeout=0.1)
    lanes = [EmptyLane("l0", (0, 1), barrier, log), EmptyLane("l1", (2, 3), barrier, log)]
    config = pool_config(None, 2)
    config.timing_config.serial_settle_width = 1
    config.timing_config.serial_settle_lanes_at_once = True
    seen: list = []
    real_lend = settle_module.HostSlots.lend
    monkeypatch.setattr(settle_module.HostSlots, "lend", lambda self: seen.append(list(self.home)) or real_lend(self))
    DevicePool(config, lanes).evaluate_many(_pool_items())
    assert sorted(seen) == [[0], [1]]  # each lane's home slot lent by the pool, though no settle ran
