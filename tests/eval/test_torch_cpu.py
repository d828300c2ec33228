"""The torch task kind end to end on the cpu target: honest candidates, every PyTorch cheat the
judge knows as a hostile candidate (tests/eval/hostile_torch/), and malformed modules, each with its
verdict and a precise message."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("torch")

from regrapht.eval import EvalConfig, Evaluator, TimingConfig  # noqa: E402
from regrapht.eval.compile import default_cache_dir  # noqa: E402
from regrapht.tasks import find_task  # noqa: E402

HOSTILE = Path(__file__).parent / "hostile_torch"
# honest candidates the README shows ship with the relu example task (joined onto HOSTILE, an absolute
# path stays itself)
RELU_EXAMPLES = Path(__file__).resolve().parents[2] / "src/regrapht/data/tasks_torch/examples/relu/candidates"


def torch_config(**overrides) -> EvalConfig:
    config = EvalConfig(
        seeds=1,
        timing=False,
        timing_config=TimingConfig(budget_s=0.2, min_rounds=5, min_s=0.05),
        static_screen=False,  # reach the runtime checks; the screen has its own test
        call_timeout_s=8.0,
        total_timeout_s=120.0,
        memory_limit_gib=4.0,
        # Built extensions and the precompiled torch header are content-addressed: sharing the user's
        # cache across test runs is safe, and spares a minute of header compilation per run.
        cache_dir=str(default_cache_dir()),
        secret=b"regrapht-torch-tests",
    )
    for key, value in overrides.items():
        setattr(config, key, value)
    return config


@pytest.fixture(scope="module")
def judge():
    with Evaluator(torch_config()) as evaluator:
        yield evaluator


def run(judge, task: str, name: str):
    return judge.evaluate(find_task(task), (HOSTILE / name).read_text(), "cpu")


# (candidate, task, status, words the message must hold)
CASES = [
    (RELU_EXAMPLES / "cpp_relu.py", "relu", "correct", ""),
    ("cpp_calls_matmul.py", "matmul", "integrity_violation", "aten::"),
    ("returns_input_alias.py", "relu", "integrity_violation", "shares memory with input 0"),
    ("returns_input_view.py", "relu", "integrity_violation", "shares memory with input 0"),
    ("reused_output.py", "relu", "integrity_violation", "same memory on every call"),
    ("lower_precision_half.py", "matmul", "integrity_violation", "lower precision"),
    ("lower_precision_bf16_cpp.py", "matmul", "wrong_answer", "differ beyond rtol=0.0001"),
    ("global_state_import.py", "relu", "integrity_violation", "cudnn.benchmark"),
    ("global_state_forward.py", "matmul", "integrity_violation", "float32 matmul precision"),
    ("monkey_patch_timer.py", "relu", "integrity_violation", "time.perf_counter"),
    ("monkey_patch_reference.py", "relu", "integrity_violation", "Model.forward"),
    ("monkey_patch_torch.py", "relu", "integrity_violation", "torch.relu"),
    ("disables_tamper_check.py", "relu", "integrity_violation", "torch_timing.tampered"),
    ("lazy_subclass.py", "relu", "integrity_violation", "subclass of torch.Tensor"),
    ("wrong_values.py", "relu", "wrong_answer", "output 0"),
    ("wrong_shape.py", "relu", "wrong_answer", "has shape (51,), the reference's (3, 17)"),
    ("wrong_dtype.py", "relu", "wrong_answer", "torch.float64, the reference returns float32"),
    ("syntax_error.py.txt", "relu", "compile_error", "syntax error at line 5"),
    ("no_modelnew.py", "relu", "compile_error", "defines no ModelNew"),
    ("wrong_forward_signature.py", "relu", "compile_error", "ModelNew.forward does not take"),
    ("wrong_init_signature.py", "relu", "compile_error", "does not match Model's constructor"),
    ("missing_package.py", "relu", "compile_error", "'triton_but_not_installed_anywhere', which is not installed"),
    ("constructor_raises.py", "relu", "runtime_error", "ValueError: no weights for you"),
    ("forward_raises.py", "relu", "runtime_error", "kernel launch failed"),
    ("import_raises.py", "relu", "runtime_error", "configuration file not found"),
    ("forward_hangs.py", "relu", "timeout", "made no progress"),
    ("forward_crashes.py", "relu", "runtime_error", "SIGSEGV"),
    ("build_error.py", "relu", "compile_error", "undefined_function"),
]


@pytest.mark.parametrize(("name", "task", "status", "words"), CASES, ids=[Path(c[0]).name for c in CASES])
def test_verdict(judge, name: str, task: str, status: str, words: str) -> None:
    ev = run(judge, task, name)
    assert ev.status == status, (ev.status, ev.message, ev.integrity)
    assert words in ev.message + " ".join(ev.integrity), ev.message
    assert (ev.reward == -1.0) == (status != "correct")


def test_plain_torch_is_accepted_on_cpu_with_a_note(judge) -> None:
    ev = run(judge, "matmul", "plain_torch_matmul.py")
    assert ev.status == "correct", ev.message
    assert any("aten::mm" in note and "accepted on the cpu target" in note for note in ev.integrity)


def test_entry_point_form_is_wrapped(judge) -> None:
    ev = run(judge, "relu", "entry_relu.py")
    assert ev.status == "correct", ev.message
    assert ev.compile["entry"] == "relu"


def test_parameters_are_loaded_from_model(judge, tmp_path: Path) -> None:
    # The candidate draws its own scale differently; the harness loads Model's by name and shape.
    source = (
        "import torch\nimport torch.nn as nn\n\n"
        "class ModelNew(nn.Module):\n"
        "    def __init__(self, features):\n"
        "        super().__init__()\n"
        "        self.scale = nn.Parameter(torch.zeros(features))\n\n"
        "    def forward(self, x):\n"
        "        return torch.softmax(x, dim=1) * self.scale\n"
    )
    ev = judge.evaluate(find_task("softmax"), source, "cpu")
    assert ev.status == "correct", ev.message


def test_static_screen_blocks_side_streams_before_running() -> None:
    with Evaluator(torch_config(static_screen=True)) as evaluator:
        ev = evaluator.evaluate(find_task("relu"), (HOSTILE / "side_stream.py").read_text(), "cpu")
    assert ev.status == "integrity_violation"
    assert "side stream" in ev.message and ev.screen and not ev.cases


def test_timed_on_cpu_with_eager_baseline() -> None:
    with Evaluator(torch_config(timing=True)) as evaluator:
        ev = evaluator.evaluate(find_task("relu"), (HOSTILE / RELU_EXAMPLES / "cpp_relu.py").read_text(), "cpu")
    assert ev.status == "correct", ev.message
    assert set(ev.timings) == {"candidate", "eager"}
    s = ev.speedups["eager"]
    assert s["ci_low"] <= s["value"] <= s["ci_high"]
    assert ev.reward_baseline == "eager" and ev.reward is not None


def test_secret_changes_inputs_and_reference_is_reused(judge) -> None:
    task = find_task("relu")
    torch_judge = judge.torch_judge()
    first = torch_judge.reference(task, "cpu")
    assert torch_judge.reference(task, "cpu") is first  # one reference run per task and target
    other = Evaluator(torch_config(secret=b"another-secret"))
    try:
        seeds = {c["input_seed"] for c in other.torch_judge().cases(task)}
    finally:
        other.close()
    assert seeds.isdisjoint({c["input_seed"] for c in first.cases})


def test_evaluate_many_routes_torch_items_in_order(judge) -> None:
    relu = find_task("relu")
    items = [(relu, (HOSTILE / n).read_text(), "cpu") for n in ("wrong_values.py", "plain_torch_relu.py")]
    first, second = judge.evaluate_many(items)
    assert (first.status, second.status) == ("wrong_answer", "correct")


@pytest.mark.slow
def test_compile_baseline_is_no_patch_on_cpu() -> None:
    # torch.compile rebinds nn.Module.__init__ at its first compile; the harness must not blame the
    # candidate for it (seen on an H100 before the fix).
    with Evaluator(torch_config(timing=True, torch_baselines=("eager", "compile"), call_timeout_s=300.0)) as evaluator:
        ev = evaluator.evaluate(find_task("relu"), (HOSTILE / "plain_torch_relu.py").read_text(), "cpu")
    assert ev.status == "correct", (ev.message, ev.integrity)
    assert "compile" in ev.speedups and "setup:compile" in ev.seconds
    # inductor's C++ compiler ran inside the sandbox: processes allowed, filesystem and network not
    assert ev.sandbox.get("processes") is True or not ev.sandbox["seccomp"], ev.sandbox


def test_evaluate_many_builds_extensions_before_the_worker_asks(judge) -> None:
    # the C++ candidate's build starts on the CPU pool from its text; its worker finds it done
    relu = find_task("relu")
    source = (RELU_EXAMPLES / "cpp_relu.py").read_text()
    (ev,) = judge.evaluate_many([(relu, source, "cpu")])
    assert ev.status == "correct", ev.message
    (build,) = ev.compile["builds"]
    assert build["ok"] and build["prebuilt"] and build["waited_s"] < 1.0, build
    # the shared cache may hold it from an earlier run: then it is a lookup, else a build with its steps
    assert build["cached"] or (build["pch"] and set(build["phases"]) >= {"pch", "cxx", "link"}), build


def test_an_earlier_worker_given_up_on_is_named_in_the_next_record(judge, monkeypatch) -> None:
    # as the serial evaluator's records do: the next worker may run beside what is left of it
    from regrapht.eval import runner
    from tests.eval.test_worker_exit import NeverExits

    assert run(judge, "relu", "plain_torch_relu.py").status == "correct"  # the reference is cached now
    monkeypatch.setattr(runner, "EXIT_WAIT_S", 0.2)
    stuck = NeverExits()
    try:
        runner.EXITS.reap(stuck)
        ev = run(judge, "relu", "plain_torch_relu.py")
    finally:
        stuck.proc.kill()
        stuck.proc.wait()
    assert ev.status == "correct"
    assert any(f"worker pid {stuck.pid} had not exited" in note for note in ev.integrity), ev.integrity
