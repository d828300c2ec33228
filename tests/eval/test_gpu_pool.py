"""The device pool on real GPUs: each lane sees its one GPU, records name it, verdicts equal one
evaluator's, and every speedup is timed on the GPU that timed its candidate.

Run on the GPU machine: pytest -m gpu tests/eval/test_gpu_pool.py (the two-GPU tests skip on one).
"""

from __future__ import annotations

import os

import pytest

from regrapht.eval import Evaluator, toolchain
from regrapht.eval.devices import lanes_for
from regrapht.eval.pool import DevicePool
from regrapht.tasks import builtin_tasks_root, load_task
from tests.eval.conftest import candidate, quick_config

pytestmark = pytest.mark.gpu
EXAMPLES = builtin_tasks_root() / "examples"
two_gpus = pytest.mark.skipif(len(toolchain.gpus()) < 2, reason="needs two GPUs of one host")


def what_the_lane_sees(state) -> tuple[str, list[str]]:
    return os.environ.get("CUDA_VISIBLE_DEVICES", ""), [g.uuid for g in toolchain.gpus()]


def _items(vec_scale):
    saxpy = load_task(EXAMPLES / "saxpy")
    sources = [
        (saxpy, (EXAMPLES / "saxpy" / "candidates" / name).read_text()) for name in ("correct.cu", "wrong.cu")
    ] + [(vec_scale, candidate(name, "hostile_cuda")) for name in ("correct.cu", "honest_stream.cu")]
    return [(task, source, "cuda") for task, source in sources]


def test_two_lanes_on_one_gpu_see_that_gpu_alone(build_cache):
    first = toolchain.gpus()[0]
    with DevicePool.local(quick_config(build_cache), lanes_for("cuda", "0,0")) as pool:
        for lane in pool.lanes:
            visible, uuids = lane.call(what_the_lane_sees)
            assert visible == first.uuid and uuids == [first.uuid]


@two_gpus
def test_two_gpus_give_one_evaluators_verdicts_and_name_their_gpu(build_cache, vec_scale):
    config = quick_config(build_cache, call_timeout_s=15.0)
    items = _items(vec_scale)
    with Evaluator(config) as one:
        alone = one.evaluate_many(items)
    with DevicePool.local(config, lanes_for("cuda", "0,1")) as pool:
        for lane, gpu in zip(pool.lanes, toolchain.gpus()[:2]):
            assert lane.call(what_the_lane_sees) == (gpu.uuid, [gpu.uuid])
        spread = pool.evaluate_many(items)
    assert [r.verdict_signature() for r in spread] == [r.verdict_signature() for r in alone]
    uuids = {g.index: g.uuid for g in toolchain.gpus()}
    assert {r.fingerprint["gpu_index"] for r in spread} == {0, 1}  # a task per GPU
    for r in spread:
        assert r.fingerprint["gpu_uuid"] == uuids[r.fingerprint["gpu_index"]]
        assert r.fingerprint["lane"] == f"gpu{r.fingerprint['gpu_index']}"
        if r.status == "correct":
            assert "naive" in r.speedups  # timed beside the candidate, in its lane, on its GPU


def lane_affinity(state) -> list[int]:
    return sorted(os.sched_getaffinity(0))


@two_gpus
def test_two_gpu_lanes_settle_at_the_batchs_end_on_cores_of_their_own(build_cache, vec_scale, tmp_path):
    config = quick_config(build_cache, call_timeout_s=15.0, serial_store=str(tmp_path / "baselines.sqlite"))
    config.timing_config.serial_max_median_error = 1e9
    config.timing_config.serial_max_background = -1.0  # no timing is kept: the batch settles every task
    with DevicePool.local(config, lanes_for("cuda", "0,1")) as pool:
        cores = {lane.name: set(lane.call(lane_affinity)) for lane in pool.lanes}
        spread = pool.evaluate_many(_items(vec_scale))
        stats = pool.lane_stats
    if len(os.sched_getaffinity(0)) >= 2:
        first, second = cores.values()
        assert first and second and not first & second
    for r in spread:
        if r.status == "correct":  # restated by its lane's close, at the pool batch's end
            assert r.seconds["serial_settle"] > 0 and "restated_from" in r.timings["serial"]
            assert r.fingerprint.get("lane_cores", len(os.sched_getaffinity(0))) == len(cores[r.fingerprint["lane"]])
    assert sorted(stats["lanes"]) == sorted(cores)
    assert all(lane["settle_s"] > 0 and lane["calls"] >= 1 for lane in stats["lanes"].values())
