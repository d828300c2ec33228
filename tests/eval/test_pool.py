"""The device pool: lane lists from --gpus, the plan that spreads a batch, order, lane deaths, and
verdicts that do not change with the number of lanes (cpu target)."""

from __future__ import annotations

import hashlib
import os
import signal
import threading
import time

import pytest

from regrapht.eval import EvalConfig, Evaluation, Evaluator
from regrapht.eval.devices import (
    LaneSpec,
    LaneSpecError,
    gpu_lanes,
    lanes_for,
    parse_cpulist,
    parse_gpu_list,
    split_cores,
)
from regrapht.eval.lanes import LaneDied, LaneState, evaluate_batch
from regrapht.eval.pool import DevicePool, PoolExhausted, assign, pool_config
from regrapht.eval.toolchain import GpuInfo, visible
from regrapht.tasks import load_task
from tests.eval.conftest import HERE, candidate, quick_config

H100 = [GpuInfo("NVIDIA H100", "9.0", "570.1", 81559, i, f"GPU-{i}aaa-{i}") for i in range(2)]


# ---- which lanes ---------------------------------------------------------------------------------
def test_gpu_list_parses_numbers_slices_and_all():
    assert parse_gpu_list("0,1") == [0, 1]
    assert parse_gpu_list(" 0, 0 ,1") == [0, 0, 1]
    assert parse_gpu_list("all") == []


@pytest.mark.parametrize(
    "spec, phrase",
    [("", "is empty"), ("0,,1", "empty entry"), ("a", "'a' is not a GPU number"), ("-1", "not a GPU number"),
     ("0.5", "not a GPU number")],
)
def test_bad_gpu_lists_say_what_is_wrong(spec, phrase):
    with pytest.raises(LaneSpecError, match=phrase):
        parse_gpu_list(spec)


def test_gpu_lanes_default_to_every_visible_gpu_pinned_by_uuid():
    lanes = gpu_lanes(None, visible=tuple(H100))
    assert [lane.name for lane in lanes] == ["gpu0", "gpu1"]
    assert lanes[1].environment() == {"CUDA_VISIBLE_DEVICES": "GPU-1aaa-1"}
    assert lanes[1].fingerprint() == {"lane": "gpu1", "gpu": "NVIDIA H100", "gpu_index": 1, "gpu_uuid": "GPU-1aaa-1"}


def test_slices_of_one_gpu_get_names_of_their_own():
    assert [lane.name for lane in gpu_lanes("0,0,1", visible=tuple(H100))] == ["gpu0", "gpu0.1", "gpu1"]
    assert [lane.name for lane in gpu_lanes("1", 2, visible=tuple(H100))] == ["gpu1", "gpu1.1"]


def test_gpu_lanes_refuse_what_the_host_does_not_have():
    with pytest.raises(LaneSpecError, match=r"names GPU 2, but this process sees 2 GPU\(s\) \(0: NVIDIA H100, 1"):
        gpu_lanes("0,2", visible=tuple(H100))
    with pytest.raises(LaneSpecError, match="no NVIDIA GPU is visible"):
        gpu_lanes(None, visible=())
    with pytest.raises(LaneSpecError, match="at least 1"):
        gpu_lanes(None, 0, visible=tuple(H100))
    mixed = (H100[0], GpuInfo("NVIDIA A100", "8.0", "570.1", 40000, 1, "GPU-x"))
    with pytest.raises(LaneSpecError, match="mixes GPU models"):
        gpu_lanes("0,1", visible=mixed)


def test_cpu_lanes_take_a_count_and_refuse_gpus():
    assert [lane.name for lane in lanes_for("cpu", None, 3)] == ["cpu0", "cpu1", "cpu2"]
    with pytest.raises(LaneSpecError, match="--gpus applies to --target cuda"):
        lanes_for("cpu", "0", 1)
    with pytest.raises(LaneSpecError, match="at least 1"):
        lanes_for("cpu", None, 0)


def test_cuda_visible_devices_selects_and_orders_the_hosts_gpus():
    host = tuple(H100)
    assert visible(host, None) == host
    assert visible(host, "1") == (host[1],)
    assert visible(host, "GPU-1aaa,0") == (host[1], host[0])
    assert visible(host, "1,7,0") == (host[1],)  # as CUDA: the list ends at an entry that names no GPU
    assert visible(host, "") == ()
    assert visible(host, "MIG-abc") == host  # slices are not resolved here


# ---- the plan ------------------------------------------------------------------------------------
def test_a_tasks_items_stay_on_one_lane_and_keep_their_order():
    keys = ["a", "b", "a", "c", "b", "a"]
    plan = assign(keys, ["l0", "l1"])
    by_lane = {lane: {keys[i] for i in positions} for lane, positions in plan.items()}
    assert by_lane == {"l0": {"a"}, "l1": {"b", "c"}}
    assert all(positions == sorted(positions) for positions in plan.values())


def test_a_task_goes_home_and_is_split_only_beyond_an_even_share():
    assert assign(["a", "a", "b"], ["l0", "l1"], home={"a": "l1"}) == {"l0": [2], "l1": [0, 1]}
    assert assign(["a"] * 5, ["l0", "l1"]) == {"l0": [0, 1, 2], "l1": [3, 4]}


def test_a_plan_weighs_groups_by_the_seconds_earlier_batches_measured():
    keys = ["slow"] * 4 + ["quick"] * 4 + ["mid"] * 4
    # By count: three groups of four over two lanes, a group split (ceil(12 / 2) = 6 items a lane).
    assert sorted(len(p) for p in assign(keys, ["l0", "l1"]).values()) == [6, 6]
    # By seconds: slow (4 x 3 s) alone on one lane, quick and mid (4 x 1 s, 4 x 2 s) on the other.
    plan = assign(keys, ["l0", "l1"], item_s={"slow": 3.0, "quick": 1.0, "mid": 2.0})
    lanes = {frozenset(keys[i] for i in positions) for positions in plan.values()}
    assert lanes == {frozenset({"slow"}), frozenset({"quick", "mid"})}
    # A task the pool has not timed (mid) weighs the mean of those it has; a home with room is kept.
    plan = assign(keys, ["l0", "l1"], home={"slow": "l1"}, item_s={"slow": 3.0, "quick": 1.0})
    assert plan == {"l0": list(range(4, 12)), "l1": [0, 1, 2, 3]}
    # A group heavier than a lane's share (7 s of 14) is split where the share ends, rounded up to a
    # whole item; the rest goes where there is room.
    plan = assign(["big"] * 6 + ["small"] * 2, ["l0", "l1"], item_s={"big": 2.0, "small": 1.0})
    assert plan == {"l0": [0, 1, 2, 3], "l1": [4, 5, 6, 7]}
    # Seconds that are not whole items of the share cut no group into slivers (both tasks whole).
    plan = assign(["a"] * 8 + ["b"] * 8, ["l0", "l1"], item_s={"a": 1.0, "b": 1.1})
    assert sorted(plan.values()) == [list(range(8)), list(range(8, 16))]
    assert assign(["a"] * 5 + ["b"] * 4, ["l0", "l1"], item_s={"a": 1.0, "b": 1.0}) == {"l0": [0, 1, 2, 3, 4], "l1": [5, 6, 7, 8]}
    # Nor into a sliver: 9 of 10 items fill the share, and the tenth stays with them (a second bench
    # build for one item would cost more than the balance gains).
    plan = assign(["big"] * 10 + ["small"] * 8, ["l0", "l1"], item_s={"big": 1.0, "small": 1.0})
    assert plan == {"l0": list(range(10)), "l1": list(range(10, 18))}


# ---- lanes that die (a lane is a process boundary: these lanes stand in for the processes) ----------
class ScriptedLane:
    """A lane whose process 'dies' on the sources listed in `kills`; it judges by the source text."""

    def __init__(self, name: str, kills: set[str], log: list) -> None:
        self.name, self.kills, self.log, self.alive = name, kills, log, True

    def call(self, fn, *args):
        if fn.__name__ == "close_batch":  # the batch's end: nothing to settle here
            return []
        [items] = args
        self.log.append((self.name, [source for _, source, _ in items]))
        if not self.alive or any(source in self.kills for _, source, _ in items):
            self.alive = False
            raise LaneDied(f"lane {self.name}: killed")
        return [
            Evaluation(task.id, target, "correct" if "ok" in source else "wrong_answer", "",
                       hashlib.sha256(source.encode()).hexdigest(), fingerprint={"lane": self.name})
            for task, source, target in items
        ]

    def post(self, fn, *args):
        pass

    def close(self):
        pass


class GpuLane(ScriptedLane):
    def __init__(self, name: str, gpu: str | None) -> None:
        super().__init__(name, set(), [])
        self.gpu = gpu


def test_cuda_devices_counts_the_gpus_the_lanes_use_once_each():
    slices = [GpuLane("gpu0", "GPU-0aaa-0"), GpuLane("gpu0.1", "GPU-0aaa-0"), GpuLane("gpu1", "GPU-1aaa-1")]
    assert DevicePool(pool_config(None, 3), slices).cuda_devices == 2
    assert DevicePool(pool_config(None, 2), [GpuLane("cpu0", None), GpuLane("cpu1", None)]).cuda_devices == 0
    dying = [GpuLane("gpu0", "GPU-0aaa-0"), GpuLane("gpu1", "GPU-1aaa-1")]
    pool = DevicePool(pool_config(None, 2), dying)
    dying[1].alive = False  # a local pool starts it again at its next batch: its GPU still counts
    assert pool.cuda_devices == 2


def test_a_lane_names_its_gpu_by_uuid_else_by_index_and_a_cpu_lane_none():
    assert [spec.device for spec in gpu_lanes("0,0,1", visible=tuple(H100))] == ["GPU-0aaa-0", "GPU-0aaa-0", "GPU-1aaa-1"]
    no_uuid = (GpuInfo("NVIDIA H100", "9.0", "570.1", 81559, 3, ""),)
    assert gpu_lanes(None, visible=no_uuid)[0].device == "gpu3"
    assert LaneSpec("cpu0").device is None


@pytest.fixture(scope="module")
def tasks():
    return load_task(HERE / "tasks" / "vec_scale"), load_task(HERE / "tasks" / "vec_scale_host")


def test_a_dead_lanes_items_run_again_elsewhere_and_a_killer_is_recorded(tasks):
    a, b = tasks
    log: list = []
    lanes = [ScriptedLane(f"l{i}", {"poison"}, log) for i in range(4)]
    pool = DevicePool(pool_config(None, 4), lanes)
    items = [(a, "ok1", "cpu"), (a, "poison", "cpu"), (a, "bad", "cpu"), (b, "ok2", "cpu")]
    results = pool.evaluate_many(items)
    assert [r.status for r in results] == ["correct", "runtime_error", "wrong_answer", "correct"]
    assert "died each time it ran this candidate alone" in results[1].message
    runs = [(lane, sources) for lane, sources in log if "poison" in sources]
    assert len(pool.deaths) == len(runs) and len({lane for lane, _ in runs}) == len(runs)
    assert [sources for _, sources in runs[-2:]] == [["poison"], ["poison"]]  # judged on two lone deaths


def test_lanes_started_again_let_two_lanes_find_a_killer(tasks):
    a, b = tasks
    log: list = []
    lanes = [ScriptedLane(f"l{i}", {"poison"}, log) for i in range(2)]
    pool = DevicePool(pool_config(None, 2), lanes, restart=lambda dead: ScriptedLane(dead.name, {"poison"}, log))
    items = [(a, "ok1", "cpu"), (a, "poison", "cpu"), (b, "ok2", "cpu"), (b, "bad", "cpu")]
    results = pool.evaluate_many(items)
    assert [r.status for r in results] == ["correct", "runtime_error", "correct", "wrong_answer"]
    assert len(pool.deaths) == 3 and sum(pool.restarts.values()) == 3
    assert all(lane.alive for lane in pool.lanes)


def test_a_pool_with_no_lane_left_says_what_is_unfinished(tasks):
    a, _ = tasks
    lanes = [ScriptedLane(f"l{i}", {"poison"}, []) for i in range(2)]
    pool = DevicePool(pool_config(None, 2), lanes, give_up_after=3)
    with pytest.raises(PoolExhausted, match=r"1 of 2 evaluations unfinished \(tasks vec_scale\)"):
        pool.evaluate_many([(a, "poison", "cpu"), (a, "ok", "cpu")])
    with pytest.raises(PoolExhausted, match="every lane of the pool has died"):
        pool.evaluate_many([(a, "ok", "cpu")])


# ---- real lanes on the cpu target ------------------------------------------------------------------
MIX = ["correct.cpp", "wrong.cpp", "syntax_error.cpp", "segfault.cpp", "partial.cpp"]


def _items(tasks):
    a, b = tasks
    return [(task, candidate(name), "cpu") for name in MIX for task in (a, b)]


@pytest.mark.slow
def test_verdicts_are_the_same_on_one_lane_and_two(build_cache, tasks):
    config = quick_config(build_cache, timing=False, static_screen=False, symbol_screen=False)
    items = _items(tasks)
    with Evaluator(config) as one:
        alone = one.evaluate_many(items)
    with DevicePool.local(config, lanes_for("cpu", None, 2)) as pool:
        pool.prefetch(list(tasks))  # forwarded to each task's home lane
        spread = pool.evaluate_many(items)
        for task in tasks:
            pool.release(task)
        single = pool.evaluate(*items[0])
    assert single.verdict_signature() == alone[0].verdict_signature()
    assert single.fingerprint["lane"] == spread[0].fingerprint["lane"]  # its task's home lane
    assert [r.verdict_signature() for r in spread] == [r.verdict_signature() for r in alone]
    assert [(r.task_id, r.candidate_sha256) for r in spread] == [(r.task_id, r.candidate_sha256) for r in alone]
    lanes = {r.task_id: r.fingerprint["lane"] for r in spread}
    assert sorted(lanes.values()) == ["cpu0", "cpu1"]  # a task per lane
    assert all(r.fingerprint["lane"] == lanes[r.task_id] for r in spread)


def test_a_lane_killed_mid_batch_loses_nothing(build_cache, tasks):
    config = quick_config(build_cache, timing=False, static_screen=False, symbol_screen=False)
    items = _items(tasks)
    with DevicePool.local(config, lanes_for("cpu", None, 2)) as pool:
        assert pool.cuda_devices == 0  # CPU lanes: no cuda candidate can run on them
        victim = pool.lanes[0]
        done: list = []
        runner = threading.Thread(target=lambda: done.append(pool.evaluate_many(items)), daemon=True)
        runner.start()
        deadline = time.monotonic() + 60
        while not victim.busy and time.monotonic() < deadline:
            time.sleep(0.01)
        assert victim.busy
        os.kill(victim.pid, signal.SIGKILL)
        runner.join(timeout=300)
        [results] = done
        assert len(pool.deaths) == 1 and "killed by signal 9" in pool.deaths[0]
        assert pool.restarts == {"cpu0": 1} and all(lane.alive for lane in pool.lanes)  # started again
        assert victim not in pool.lanes and not victim.alive
        again = pool.evaluate_many(items[:2])
        assert {r.fingerprint["lane"] for r in again} == {"cpu0", "cpu1"}  # homes kept
    expected = {"correct.cpp": "correct", "wrong.cpp": "wrong_answer", "syntax_error.cpp": "compile_error",
                "segfault.cpp": "runtime_error", "partial.cpp": "wrong_answer"}
    assert [r.status for r in results] == [expected[name] for name in MIX for _ in range(2)]


def test_a_lane_states_batch_names_its_lane(build_cache, tasks):
    state = LaneState(LaneSpec("cpu7"), quick_config(build_cache, timing=False))
    try:
        [ev] = evaluate_batch(state, [(tasks[0], candidate("correct.cpp"), "cpu")])
    finally:
        state.close()
    assert ev.status == "correct" and ev.fingerprint["lane"] == "cpu7"


def test_lanes_share_the_cores_this_process_may_use_not_the_hosts(monkeypatch):
    # A run pinned with taskset (a 2-GPU share of a 4-GPU host) must not size its pools by the host.
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1, 2, 3, 4, 5}, raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: 64)
    assert pool_config(None, 2).jobs == 3


def test_lanes_share_the_memory_kept_for_bench_data():
    one = EvalConfig().reference_cache_bytes()
    assert pool_config(None, 4).reference_cache_bytes() == max(2 << 30, one // 4)
    assert pool_config(EvalConfig(reference_cache_gib=3.0), 4).reference_cache_gib == 3.0  # as given


# ---- each lane's own cores -------------------------------------------------------------------------
def test_a_kernel_cpu_list_is_read_and_a_bad_one_is_empty():
    assert parse_cpulist("0-3,8,10-11\n") == {0, 1, 2, 3, 8, 10, 11}
    assert parse_cpulist("0-3,x") == set() and parse_cpulist("") == set()


def test_lanes_get_disjoint_even_shares_nearest_their_gpu_first():
    gpus = [GpuInfo("H100", "9.0", "580", 80000, i, f"GPU-{i}") for i in range(2)]
    specs = [LaneSpec("gpu0", gpus[0]), LaneSpec("gpu1", gpus[1])]
    # GPU 0 sits on the node of cores 32-63, GPU 1 on 0-31; the pool may use 16-47.
    near = {"GPU-0": set(range(32, 64)), "GPU-1": set(range(32))}
    pinned = split_cores(specs, set(range(16, 48)), local=lambda gpu: near[gpu.uuid])
    assert pinned[0].cores == tuple(range(32, 48)) and pinned[1].cores == tuple(range(16, 32))
    assert pinned[0].fingerprint()["lane_cores"] == 16
    # Unknown nodes: even shares in order; an odd count gives the first lane the extra core.
    plain = split_cores(specs, {0, 1, 2, 3, 4}, local=lambda gpu: set())
    assert [s.cores for s in plain] == [(0, 1, 2), (3, 4)]
    # Fewer cores than lanes, one lane, or CPU lanes (their candidates time on the cores): unpinned.
    assert [s.cores for s in split_cores(specs, {0}, local=lambda gpu: set())] == [None, None]
    assert [s.cores for s in split_cores([LaneSpec("cpu0"), LaneSpec("cpu1")], {4, 5})] == [None, None]
    assert split_cores(specs[:1], set(range(8)))[0].cores is None


def lane_affinity(state) -> list[int]:
    return sorted(os.sched_getaffinity(0))


def test_each_local_lane_runs_on_its_own_cores(build_cache, monkeypatch):
    from regrapht.eval import toolchain

    monkeypatch.setattr(toolchain, "usable_core_set", lambda: set(sorted(os.sched_getaffinity(0))[:2]))
    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("needs two cores")
    # Two GPU lanes on a machine without GPUs: nothing in them touches CUDA here.
    gpus = [GpuInfo("H100", "9.0", "580", 80000, i, f"GPU-{i}") for i in range(2)]
    with DevicePool.local(quick_config(build_cache), [LaneSpec(f"gpu{i}", g) for i, g in enumerate(gpus)]) as pool:
        seen = [lane.call(lane_affinity) for lane in pool.lanes]
    first, second = sorted(os.sched_getaffinity(0))[:2]
    assert seen == [[first], [second]]
