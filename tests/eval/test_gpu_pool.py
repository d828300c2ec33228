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
