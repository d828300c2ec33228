"""The environment on the cuda target: rewards against the naive and serial baselines, a variant's
sizes reaching the GPU, and a cheat caught and audited.

Run on the GPU machine: PYTHONPATH=src python -m pytest -m gpu tests/rl/test_gpu.py
"""

from __future__ import annotations

import math

import pytest

from regrapht.eval import Evaluator
from regrapht.rl import EnvConfig, ReplayBuffer, RewardConfig, RewardEnv
from tests.eval.conftest import quick_config
from tests.rl.conftest import HERE

pytestmark = pytest.mark.gpu
HOSTILE_CUDA = HERE.parent / "eval" / "hostile_cuda"


@pytest.fixture(scope="module")
def gpu_eval(rl_cache):
    with Evaluator(quick_config(rl_cache, call_timeout_s=15.0)) as ev:
        yield ev


def cu(name: str) -> str:
    return f"```cuda\n{(HOSTILE_CUDA / name).read_text()}```\n"


@pytest.mark.parametrize("baseline", ["naive", "serial"])
def test_cuda_group_rewards_and_evidence(gpu_eval, vec_scale, baseline) -> None:
    buffer = ReplayBuffer()
    env = RewardEnv([vec_scale], gpu_eval,
                    EnvConfig(target="cuda", reward=RewardConfig("log_speedup", baseline=baseline), train_variants=2),
                    buffer)
    episode = env.reset()
    good, side, late, none = env.score_many(
        [cu("correct.cu"), cu("side_stream.cu"), cu("wrong_at_bench.cu"), "no code"]
    )
    assert good.reward.evidence.status == "correct", good.reward.evidence.message
    speed = good.reward.evidence.speedup
    assert speed["ci_low"] <= speed["value"] <= speed["ci_high"]
    limit = math.log(64)
    assert good.reward.value == pytest.approx(max(-limit, min(limit, math.log(speed["value"]))))
    n = episode.problem.variant.bench_size["n"]
    assert good.evaluation.roofline["floor_bytes"] == 8 * n
    assert side.reward.evidence.status == "integrity_violation"
    # a kernel wrong only at large sizes is caught at the variant's drawn bench size
    assert late.reward.evidence.status == "wrong_answer" and f"wrong at the bench size (n={n})" in late.reward.evidence.message
    assert side.reward.value == late.reward.value == none.reward.value == -limit - 1
    report = env.audit.report()
    assert report["scored"] == 4 and report["integrity_violations"] == 1
    assert env.reset().template == "rl_contrastive@1"
    buffer.close()
