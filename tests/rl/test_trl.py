"""The TRL adapter: the environment as a GRPO reward function, called by hand with real completions
and by a real `trl.GRPOTrainer` for two steps with a tiny random model (whose output is junk: this
proves the plumbing, not learning)."""

from __future__ import annotations

from pathlib import Path

import pytest

from regrapht.rl import EnvConfig, RewardConfig, RewardEnv
from regrapht.rl.trl_reward import GRPOReward, completion_text, grpo_dataset
from tests.rl.conftest import fenced


@pytest.fixture(scope="module")
def env(evaluator, vec_scale):
    return RewardEnv([vec_scale], evaluator, EnvConfig(target="cpu", reward=RewardConfig("hierarchical"), train_variants=2))


def test_the_reward_function_groups_by_problem_and_logs(env) -> None:
    pytest.importorskip("datasets")
    data = grpo_dataset(env, 2)
    assert data.column_names == ["prompt", "problem"] and data[0]["prompt"][-1]["role"] == "user"
    reward = GRPOReward(env)
    extra, metrics = {}, {}
    p0, p1 = data[0]["problem"], data[1]["problem"]
    completions = [
        [{"role": "assistant", "content": fenced("correct.cpp")}],  # conversational
        "no code",
        fenced("wrong.cpp"),
        fenced("correct.cpp"),
    ]
    values = reward(
        prompts=["p"] * 4, completions=completions, problem=[p0, p0, p1, p1],
        log_extra=lambda k, v: extra.__setitem__(k, v), log_metric=lambda k, v: metrics.__setitem__(k, v),
        trainer_state=None,
    )
    assert extra["status"] == ["correct", "parse_error", "wrong_answer", "correct"]
    assert values[1] == values[2] == -1.0 and values[0] > -1.0 and values[3] > -1.0
    assert metrics == {"regrapht/correct": 0.5, "regrapht/integrity_violation": 0.0}
    assert [r["problem"] for r in reward.history[-1]] == [p0, p0, p1, p1]
    with pytest.raises(ValueError, match="needs a `problem` column"):
        reward(prompts=["p"], completions=["x"])
    with pytest.raises(TypeError, match="not int"):
        completion_text(3)


@pytest.mark.slow  # some 30 s of CPU: a model, generation and two optimizer steps
def test_grpo_trainer_runs_two_steps_on_the_environment(env, tmp_path: Path) -> None:
    trl = pytest.importorskip("trl", reason="the trl extra is not installed (pip install 'regrapht[trl]')")
    pytest.importorskip("transformers")
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from regrapht.llm.random_model import build_random_chat_model

    folder = build_random_chat_model(tmp_path / "tiny", max_positions=8192)
    model = AutoModelForCausalLM.from_pretrained(folder)
    tokenizer = AutoTokenizer.from_pretrained(folder)
    reward = GRPOReward(env)
    config = trl.GRPOConfig(
        output_dir=str(tmp_path / "out"), max_steps=2, per_device_train_batch_size=2, num_generations=2,
        max_completion_length=8, use_cpu=True, report_to=[], logging_steps=1, save_strategy="no",
        seed=0, bf16=False,
    )
    trainer = trl.GRPOTrainer(model=model, reward_funcs=[reward], args=config,
                              train_dataset=grpo_dataset(env, 4), processing_class=tokenizer)
    trainer.train()
    assert trainer.state.global_step == 2
    assert len(reward.history) >= 2 and all(len(h) == 2 for h in reward.history)
    assert all(r["status"] in ("parse_error", "compile_error") for h in reward.history for r in h)
    logged = [entry for entry in trainer.state.log_history if "loss" in entry]
    assert len(logged) == 2 and all(e["rewards/regrapht_reward/mean"] == -1.0 for e in logged)


def test_ci_installs_the_trl_extra_and_keeps_the_cpu_torch() -> None:
    """The GRPOTrainer test above skips without trl: CI must install the extra, and must not let it
    (through accelerate's plain `torch` requirement) replace the pinned CPU build."""
    import re
    import shlex

    ci = (Path(__file__).resolve().parents[2] / ".ci" / "run").read_text()
    pinned = re.search(r"pip install -q (torch==[\d.]+)\n", ci)
    assert pinned, "CI installs the CPU torch build, pinned, before any extra"
    [editable] = [shlex.split(line) for line in ci.splitlines() if "pip install" in line and " -e " in line]
    extras = re.search(r"\[(.*)\]", editable[editable.index("-e") + 1]).group(1).split(",")
    assert "trl" in extras and pinned.group(1) in editable, editable
    assert "torch.version.cuda is None" in ci


def test_an_unjudged_completion_is_none_for_trl() -> None:
    """No GPU for a cuda-target torch task: TRL gets None (it leaves the sample out), not a 0 that
    measured nothing; a completion without code is still judged."""
    from regrapht.tasks import find_task
    from tests.rl.test_torch_env import RELU_EXAMPLES, RecordingScorer, py

    env = RewardEnv([find_task("relu")], RecordingScorer(0), EnvConfig(target="cuda", reward=RewardConfig(baseline="eager")))
    pid = env.sampler.sample(0).id
    values = GRPOReward(env)(prompts=["p", "p"], completions=[py(RELU_EXAMPLES / "triton_relu.py"), "no code"],
                             problem=[pid, pid])  # fmt: skip
    assert values == [None, -1.0]
