"""Torch tasks (KernelBench layout) in the environment on a machine without a GPU: parsing, prompts,
the baseline choice, what reaches the judge, a clear status when the cuda target has no GPU, and
real scoring on the cpu target through the torch judge."""

from __future__ import annotations

from pathlib import Path

import pytest

from regrapht.eval.record import Evaluation
from regrapht.llm.torch_parse import extract_torch_code
from regrapht.rl import EnvConfig, ReplayBuffer, RewardConfig, RewardConfigError, RewardEnv
from regrapht.rl.client import RewardClient
from regrapht.rl.service import RewardService, ServiceConfig
from regrapht.tasks import find_task

ROOT = Path(__file__).resolve().parents[2]
RELU_EXAMPLES = ROOT / "src/regrapht/data/tasks_torch/examples/relu/candidates"
HOSTILE_TORCH = ROOT / "tests/eval/hostile_torch"


def py(path: Path) -> str:
    return f"Here is my module.\n\n```python\n{path.read_text()}```\n"


class RecordingScorer:
    """Answers every item 'correct' with an eager speedup of 2 and keeps what it was sent."""

    def __init__(self, cuda_devices: int):
        self.cuda_devices = cuda_devices
        self.items: list = []

    def evaluate_many(self, items):
        self.items += items
        return [Evaluation(task.id, target, "correct", "", "0" * 64,
                           speedups={"eager": {"value": 2.0, "ci_low": 1.9, "ci_high": 2.1}})
                for task, _, target in items]  # fmt: skip


# ---- parsing -------------------------------------------------------------------------------------
def test_extracts_the_module_defining_model_new() -> None:
    source = (RELU_EXAMPLES / "triton_relu.py").read_text()
    found = extract_torch_code("A sketch:\n```python\nprint(1)\n```\n" + py(RELU_EXAMPLES / "triton_relu.py"))
    assert found.ok and found.code.strip() == source.strip() and found.language == "python"
    assert found.rule == "the only block with the form ModelNew" and "2 code blocks" in found.notes[0]


def test_extracts_a_bare_cuda_entry_and_an_unfenced_module() -> None:
    cu = "```cuda\n// regrapht: entry = relu\n#include <torch/extension.h>\ntorch::Tensor relu(torch::Tensor x) { return x; }\n```"
    found = extract_torch_code(cu)
    assert found.ok and found.language == "cuda" and found.rule == "the only block with the form cuda entry"
    whole = extract_torch_code((RELU_EXAMPLES / "triton_relu.py").read_text())
    assert whole.ok and whole.rule.startswith("unfenced")


@pytest.mark.parametrize(
    ("text", "reason", "words"),
    [
        ("", "empty", "empty"),
        ("I would fuse the loops.", "no_code", "no code block"),
        ("```python\nclass Model:\n    pass\n```", "function_missing", "none defines class ModelNew"),
        ("<think>```python\nclass ModelNew: pass\n```</think>", "no_code", "no text outside its reasoning"),
    ],
)
def test_parse_failures_say_why(text: str, reason: str, words: str) -> None:
    found = extract_torch_code(text)
    assert not found.ok and found.reason == reason and words in found.message


# ---- prompts, baselines, routing -----------------------------------------------------------------
def test_prompts_show_the_reference_the_variant_and_the_language() -> None:
    relu = find_task("relu")
    env = RewardEnv([relu], RecordingScorer(1), EnvConfig(target="cuda", reward=RewardConfig(baseline="eager"),
                                                         torch_language="triton"))  # fmt: skip
    episode = env.reset()
    user = episode.messages[-1]["content"]
    variant = episode.problem.variant
    assert episode.template == "rl_torch_task@1"
    assert "class Model(nn.Module)" in user and "Triton kernels (@triton.jit)" in user
    assert all(f"{k} = {v}" in user for k, v in variant.bench_size.items()) and f"in {variant.dtype}" in user
    cpu = RewardEnv([relu], RecordingScorer(0), EnvConfig(target="cpu", reward=RewardConfig(baseline="eager")))
    text = cpu.episode(cpu.sampler.sample(0)).messages[-1]["content"]
    assert "load_inline (cpp_sources)" in text and "batch_size = 64, dim = 4096" in text  # the cpu bench


def test_baselines_a_torch_run_may_choose() -> None:
    relu = find_task("relu")
    for baseline in ("eager", "compile", "max-autotune", "cudagraph"):
        class Timed(RecordingScorer):
            class config:  # noqa: N801 - an EvalConfig's one field the environment reads
                torch_baselines = ("eager", "compile", "max-autotune", "cudagraph")
                timing = True

        RewardEnv([relu], Timed(1), EnvConfig(target="cuda", reward=RewardConfig(baseline=baseline)))
    with pytest.raises(RewardConfigError, match="no 'serial' baseline"):
        RewardEnv([relu], RecordingScorer(1), EnvConfig(target="cuda"))
    with pytest.raises(RewardConfigError, match="times eager, compile on the cuda target, not 'cudagraph'"):
        RewardEnv([relu], RecordingScorer(1), EnvConfig(target="cuda", reward=RewardConfig(baseline="cudagraph")))
    with pytest.raises(RewardConfigError, match="times eager on the cpu target, not 'compile'"):
        RewardEnv([relu], RecordingScorer(0), EnvConfig(target="cpu", reward=RewardConfig(baseline="compile")))
    with pytest.raises(ValueError, match="Triton kernels need the cuda target"):
        EnvConfig(target="cpu", torch_language="triton")


def test_the_judge_receives_the_variant_task() -> None:
    scorer = RecordingScorer(1)
    env = RewardEnv([find_task("relu")], scorer,
                    EnvConfig(target="cuda", reward=RewardConfig("speedup", baseline="eager"), seed=4))  # fmt: skip
    problem = env.reset().problem
    [good, none] = env.step(py(RELU_EXAMPLES / "triton_relu.py")), env.step("no code")
    [(task, source, target)] = scorer.items
    assert task.id == problem.id and task.dtype == problem.variant.dtype and task.bench_size == problem.variant.bench_size
    assert target == "cuda" and "class ModelNew" in source
    assert good.reward.value == 2.0 and good.reward.evidence.baseline == "eager"
    assert none.reward.evidence.status == "parse_error"


def test_cuda_target_without_a_gpu_records_no_device_and_runs_nothing() -> None:
    scorer = RecordingScorer(0)
    env = RewardEnv([find_task("relu")], scorer,
                    EnvConfig(target="cuda", reward=RewardConfig("ranked", baseline="eager")), ReplayBuffer())  # fmt: skip
    env.reset()
    code, none = env.score_many([py(RELU_EXAMPLES / "triton_relu.py"), "no code"])
    assert scorer.items == []  # nothing reached the judge
    assert code.reward.evidence.status == "no_device"
    assert "runs cuda-target candidates on a GPU" in code.reward.evidence.message and code.reward.value == 0.0 and code.evaluation is None
    assert none.reward.evidence.status == "parse_error" and none.reward.value == -1.0  # still judged
    assert env.replay.entries("relu") == [] and env.audit.report()["by_status"] == {"no_device": 1, "parse_error": 1}


def test_a_device_pool_says_whether_cuda_candidates_can_run_not_this_host(monkeypatch) -> None:
    from regrapht.eval import toolchain
    from regrapht.eval.pool import DevicePool, pool_config

    class Lane:
        """A lane of a pool: answers 'correct' with an eager speedup, as RecordingScorer does."""

        def __init__(self, name: str, gpu: str | None) -> None:
            self.name, self.gpu, self.alive, self.sent = name, gpu, True, []

        def call(self, fn, *args):
            if fn.__name__ == "close_batch":  # the pool batch's end: no serial baseline to settle
                return []
            [items] = args
            self.sent += items
            return RecordingScorer(1).evaluate_many(items)

        def post(self, fn, *args):
            pass

        def close(self):
            pass

    def probe():  # the host's GPUs must not decide: the lanes' do
        raise AssertionError("the environment probed this host's GPUs")

    monkeypatch.setattr(toolchain, "gpus", probe)
    config = EnvConfig(target="cuda", reward=RewardConfig("speedup", baseline="eager"))
    cpu_lanes = [Lane("cpu0", None), Lane("cpu1", None)]
    env = RewardEnv([find_task("relu")], DevicePool(pool_config(None, 2), cpu_lanes), config)
    env.reset()
    [result] = env.score_many([py(RELU_EXAMPLES / "triton_relu.py")])
    assert result.reward.evidence.status == "no_device" and not any(lane.sent for lane in cpu_lanes)
    gpu_lanes = [Lane("gpu0", "GPU-0"), Lane("gpu1", "GPU-1")]
    env = RewardEnv([find_task("relu")], DevicePool(pool_config(None, 2), gpu_lanes), config)
    env.reset()
    [result] = env.score_many([py(RELU_EXAMPLES / "triton_relu.py")])
    assert result.reward.evidence.status == "correct" and result.reward.value == 2.0
    assert sum(len(lane.sent) for lane in gpu_lanes) == 1


def test_the_service_serves_torch_prompts_and_statuses() -> None:
    env = RewardEnv([find_task("relu")], RecordingScorer(0), EnvConfig(target="cuda", reward=RewardConfig(baseline="eager")))
    service = RewardService(env, ServiceConfig(port=0)).start()
    try:
        with RewardClient(service.url) as client:
            episode = client.reset(3)
            assert episode["template"] == "rl_torch_task@1"
            assert episode["problem"]["dtype"] in ("float32", "bfloat16", "float16")
            [result] = client.score(episode["problem"]["id"], [py(RELU_EXAMPLES / "triton_relu.py")])
            assert result["evidence"]["status"] == "no_device" and result["reward"] == 0.0
    finally:
        service.shutdown()


# ---- real scoring on the cpu target ---------------------------------------------------------------
@pytest.fixture(scope="module")
def torch_eval():
    pytest.importorskip("torch")
    from regrapht.eval import Evaluator
    from tests.eval.test_torch_cpu import torch_config

    with Evaluator(torch_config(timing=True)) as ev:
        yield ev


@pytest.mark.slow  # four torch workers (each imports torch), a reference and timing: some 45 s on 2 cores
def test_torch_candidates_scored_on_the_cpu_target(torch_eval) -> None:
    buffer = ReplayBuffer()
    env = RewardEnv([find_task("relu")], torch_eval,
                    EnvConfig(target="cpu", reward=RewardConfig("log_speedup", baseline="eager"), train_variants=2),
                    buffer)  # fmt: skip
    problem = next(p for p in (env.sampler.sample(i) for i in range(50)) if p.variant.dtype == "float32")
    good, plain, wrong, alias, none = env.score_many(
        [py(RELU_EXAMPLES / "cpp_relu.py"), py(HOSTILE_TORCH / "plain_torch_relu.py"), py(HOSTILE_TORCH / "wrong_values.py"),
         py(HOSTILE_TORCH / "returns_input_alias.py"), "no code"], problem)  # fmt: skip
    assert good.reward.evidence.status == "correct", good.reward.evidence.message
    speed = good.reward.evidence.speedup
    assert speed["ci_low"] <= speed["value"] <= speed["ci_high"] and good.evaluation.task_id == problem.id
    assert plain.reward.evidence.status == "correct"
    assert any("accepted on the cpu target" in n for n in plain.reward.evidence.integrity)
    assert wrong.reward.evidence.status == "wrong_answer" and "differ beyond" in wrong.reward.evidence.message
    assert alias.reward.evidence.status == "integrity_violation"
    assert none.reward.evidence.status == "parse_error"
    assert wrong.reward.value == alias.reward.value == none.reward.value < good.reward.value
    assert env.audit.report()["integrity_violations"] == 1
    assert env.episode(problem).template == "rl_torch_contrastive@1"  # the buffer holds its versions now
    buffer.close()
