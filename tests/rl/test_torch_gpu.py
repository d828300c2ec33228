"""Torch tasks through the environment on the cuda target: the shipped Triton ReLU and a CUDA
(load_inline) ReLU scored against the eager and the torch.compile baselines at a drawn variant's
sizes and dtype, and a plain-PyTorch answer caught.

Run on the GPU machine: PYTHONPATH=src python -m pytest -m gpu tests/rl/test_torch_gpu.py
"""

from __future__ import annotations

import math

import pytest

pytestmark = pytest.mark.gpu

pytest.importorskip("torch")

from regrapht.eval import Evaluator  # noqa: E402
from regrapht.rl import EnvConfig, ReplayBuffer, RewardConfig, RewardEnv  # noqa: E402
from regrapht.tasks import find_task  # noqa: E402
from tests.eval.test_torch_cpu import torch_config  # noqa: E402
from tests.rl.test_torch_env import HOSTILE_TORCH, RELU_EXAMPLES, py  # noqa: E402


@pytest.fixture(scope="module")
def gpu_torch():
    with Evaluator(torch_config(timing=True, call_timeout_s=60.0, torch_baselines=("eager", "compile"))) as ev:
        yield ev


def _env(evaluator, baseline: str) -> RewardEnv:
    config = EnvConfig(target="cuda", reward=RewardConfig("log_speedup", baseline=baseline), train_variants=8)
    return RewardEnv([find_task("relu")], evaluator, config, ReplayBuffer())


def _problem(env: RewardEnv, dtype: str):
    return next(p for p in (env.sampler.sample(i) for i in range(200)) if p.variant.dtype == dtype)


@pytest.mark.parametrize("baseline", ["eager", "compile"])
def test_triton_and_cuda_relu_scored_over_the_baseline(gpu_torch, baseline) -> None:
    env = _env(gpu_torch, baseline)
    problem = _problem(env, "float32")
    triton, cuda, plain, none = env.score_many(
        [py(RELU_EXAMPLES / "triton_relu.py"), py(HOSTILE_TORCH / "cuda_relu.py"),
         py(HOSTILE_TORCH / "plain_torch_relu.py"), "no code"], problem)  # fmt: skip
    limit = math.log(64)
    for good in (triton, cuda):
        e = good.reward.evidence
        assert e.status == "correct", e.message
        assert e.baseline == baseline and e.speedup["ci_low"] <= e.speedup["value"] <= e.speedup["ci_high"]
        assert good.reward.value == pytest.approx(max(-limit, min(limit, math.log(e.speedup["value"]))))
        assert good.evaluation.task_id == problem.id
        # the variant's drawn sizes reached the GPU: the byte floor is the drawn shape's
        roof = good.evaluation.roofline
        n = problem.variant.bench_size["batch_size"] * problem.variant.bench_size["dim"]
        assert roof["floor_s"] * roof["bandwidth_bytes_per_s"] == pytest.approx(8 * n, rel=1e-6)
    assert plain.reward.evidence.status == "integrity_violation"  # torch.relu is not a custom kernel
    assert plain.reward.value == none.reward.value == -limit - 1
    assert env.audit.report()["integrity_violations"] == 1


def test_a_half_precision_variant_reaches_the_kernels(gpu_torch) -> None:
    env = _env(gpu_torch, "eager")
    problem = _problem(env, "bfloat16")
    triton, cuda = env.score_many([py(RELU_EXAMPLES / "triton_relu.py"), py(HOSTILE_TORCH / "cuda_relu.py")], problem)
    assert triton.reward.evidence.status == "correct", triton.reward.evidence.message
    # the CUDA candidate reads float* only: a bfloat16 input is its error, and is scored as one
    assert cuda.reward.evidence.status in ("runtime_error", "wrong_answer"), cuda.reward.evidence.message
