"""The torch judge's sandbox, audited calls and per-element perturbation on the GPU: honest CUDA and
Triton candidates pass confined (Triton and inductor compile inside the sandbox), the sandbox's
hostile candidates are caught on cuda, a Triton candidate that defers to torch.matmul after its first
call is caught, and a Triton memorizer whose every operator is allowed is timed doing the work or
caught by a checked round. Run: PYTHONPATH=src:. python -m pytest -q -m gpu tests/eval/test_torch_integrity_gpu.py"""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.gpu

torch = pytest.importorskip("torch")

from regrapht.eval import Evaluator, TimingConfig, sandbox  # noqa: E402
from regrapht.tasks import find_task  # noqa: E402

from .test_torch_cpu import HOSTILE, RELU_EXAMPLES, torch_config  # noqa: E402

OFFERED = sandbox.probe()


def _triton() -> None:
    pytest.importorskip("triton")


@pytest.fixture(scope="module")
def judge():
    with Evaluator(torch_config(call_timeout_s=120.0)) as evaluator:
        yield evaluator


@pytest.fixture(scope="module")
def timed():
    config = torch_config(timing=True, call_timeout_s=300.0, total_timeout_s=900.0,
                          timing_config=TimingConfig(budget_s=3.0, min_rounds=30, min_s=0.5, max_rounds=200))  # fmt: skip
    with Evaluator(config) as evaluator:
        yield evaluator


def run(judge, task: str, source: str):
    return judge.evaluate(find_task(task), source, "cuda")


@pytest.mark.parametrize("name", ["cuda_relu.py", "bare_relu.cu", RELU_EXAMPLES / "triton_relu.py"])
def test_honest_candidates_pass_confined(judge, name) -> None:
    if "triton" in str(name):
        _triton()
    ev = run(judge, "relu", (HOSTILE / name).read_text())
    assert ev.status == "correct", (ev.status, ev.message, ev.integrity)
    assert ev.sandbox["landlock"] == OFFERED["landlock"] and ev.sandbox["seccomp"] == OFFERED["seccomp"]
    assert ev.sandbox["processes"] is True  # Triton's ptxas and launcher build


@pytest.mark.parametrize(
    ("name", "words"),
    [("reads_expected.py", "the sandbox refused access to"),
     ("writes_outside_scratch.py", "the sandbox refused access to"),
     ("opens_socket.py", "the sandbox refused opening a network socket")],
)  # fmt: skip
def test_sandbox_cheats_on_cuda(judge, name: str, words: str) -> None:
    # plain torch on cuda is also a library call; the sandbox's refusal comes first (in forward)
    ev = run(judge, "relu", (HOSTILE / name).read_text())
    assert ev.status == "integrity_violation", (ev.status, ev.message)
    assert words in ev.message, ev.message


def test_compile_baselines_work_inside_the_sandbox() -> None:
    config = torch_config(timing=True, call_timeout_s=600.0, total_timeout_s=1200.0, torch_baselines=("eager", "compile", "max-autotune"))
    with Evaluator(config) as evaluator:
        ev = run(evaluator, "relu", (HOSTILE / "cuda_relu.py").read_text())
    assert ev.status == "correct", (ev.message, ev.integrity)
    assert {"compile", "max-autotune"} <= set(ev.speedups), ev.integrity
    assert ev.sandbox["landlock"] == OFFERED["landlock"]


def test_triton_switching_to_torch_matmul_after_its_first_call_is_caught(judge) -> None:
    _triton()
    honest = (HOSTILE / "triton_matmul_tf32.py").read_text().replace('PRECISION = "tf32"', 'PRECISION = "ieee"')
    source = honest.replace("class ModelNew(nn.Module):", "class _Honest(nn.Module):") + (
        "\n\nclass ModelNew(_Honest):\n"
        "    calls = 0\n\n"
        "    def forward(self, A, B):\n"
        "        type(self).calls += 1\n"
        "        return super().forward(A, B) if type(self).calls == 1 else torch.matmul(A, B)\n"
    )
    ev = run(judge, "matmul", source)
    assert ev.status == "integrity_violation", (ev.status, ev.message)
    assert "aten::mm" in ev.message


def test_triton_memorizer_by_exact_scale_is_timed_doing_the_work(timed) -> None:
    _triton()
    ev = run(timed, "matmul", (HOSTILE / "triton_memorizes_by_scale.py").read_text())
    assert ev.status == "correct", (ev.status, ev.message)
    # its replay is an elementwise scale (~100x faster than an fp32 4096^3 product); doing the work,
    # a simple Triton matmul is no faster than cuBLAS
    assert ev.speedups["eager"]["value"] < 1.5, ev.speedups["eager"]


def test_triton_memorizer_by_nearest_scale_is_caught(timed) -> None:
    _triton()
    source = (HOSTILE / "triton_memorizes_by_scale.py").read_text().replace("NEAREST = False", "NEAREST = True")
    ev = run(timed, "matmul", source)
    assert ev.status == "integrity_violation", (ev.status, ev.message)
    assert "differ from eager's on the same inputs" in ev.message
