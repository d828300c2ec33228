"""Torch candidates on the GPU: honest CUDA (load_inline and bare .cu) and Triton candidates are
never flagged; the PyTorch cheats on CUDA and Triton are caught; baselines are timed interleaved."""

from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = pytest.mark.gpu

torch = pytest.importorskip("torch")

from regrapht.eval import Evaluator  # noqa: E402
from regrapht.tasks import find_task  # noqa: E402

from .test_torch_cpu import torch_config  # noqa: E402

HOSTILE = Path(__file__).parent / "hostile_torch"
# honest candidates the README shows ship with the relu example task (joined onto HOSTILE, an absolute
# path stays itself)
RELU_EXAMPLES = Path(__file__).resolve().parents[2] / "src/regrapht/data/tasks_torch/examples/relu/candidates"


@pytest.fixture(scope="module")
def judge():
    with Evaluator(torch_config(call_timeout_s=60.0)) as evaluator:
        yield evaluator


def _has_triton() -> bool:
    try:
        import triton  # noqa: F401
    except ImportError:
        return False
    return True


def run(judge, task: str, source: str):
    return judge.evaluate(find_task(task), source, "cuda")


@pytest.mark.parametrize("name", ["cuda_relu.py", "bare_relu.cu", RELU_EXAMPLES / "triton_relu.py"])
def test_honest_candidates_are_correct(judge, name: str) -> None:
    if "triton" in str(name) and not _has_triton():
        pytest.skip("triton is not installed")
    ev = run(judge, "relu", (HOSTILE / name).read_text())
    assert ev.status == "correct", (ev.status, ev.message, ev.integrity)
    assert not [n for n in ev.integrity if "ATen operators" not in n]


def test_honest_triton_matmul_in_ieee_precision(judge) -> None:
    if not _has_triton():
        pytest.skip("triton is not installed")
    source = (HOSTILE / "triton_matmul_tf32.py").read_text().replace('PRECISION = "tf32"', 'PRECISION = "ieee"')
    ev = run(judge, "matmul", source)
    assert ev.status == "correct", ev.message


@pytest.mark.parametrize(
    ("name", "task", "status", "words"),
    [
        ("plain_torch_matmul.py", "matmul", "integrity_violation", "aten::mm"),
        ("plain_torch_relu.py", "relu", "integrity_violation", "not by a custom kernel"),
        ("cpp_calls_matmul.py", "matmul", "integrity_violation", "aten::"),
        ("side_stream.py", "relu", "integrity_violation", "stream"),
        ("returns_input_alias.py", "relu", "integrity_violation", "shares memory with input 0"),
        ("reused_output.py", "relu", "integrity_violation", "same memory on every call"),
        ("lower_precision_half.py", "matmul", "integrity_violation", "lower precision"),
        ("triton_matmul_tf32.py", "matmul", "wrong_answer", "differ beyond"),
        ("global_state_import.py", "relu", "integrity_violation", "cuda.matmul.allow_tf32"),
        ("monkey_patch_reference.py", "relu", "integrity_violation", "Model.forward"),
    ],
)
def test_cheats_on_cuda(judge, name: str, task: str, status: str, words: str) -> None:
    if "triton" in str(name) and not _has_triton():
        pytest.skip("triton is not installed")
    ev = run(judge, task, (HOSTILE / name).read_text())
    assert ev.status == status, (ev.status, ev.message, ev.integrity)
    assert words in ev.message + " ".join(ev.integrity)


def test_kernel_on_its_own_stream_is_caught() -> None:
    # At test sizes the side kernel may end before the copy taken at return (a race); at the bench
    # size the host time, which a device-wide synchronize closes, is far above the event time.
    config = torch_config(timing=True, call_timeout_s=120.0, torch_baselines=("eager",))
    with Evaluator(config) as evaluator:
        ev = evaluator.evaluate(find_task("relu"), (HOSTILE / "cuda_side_stream_kernel.py").read_text(), "cuda")
    assert ev.status == "integrity_violation", (ev.status, ev.message)
    assert "after forward returned" in ev.message or "host time" in ev.message


def test_baselines_timed_interleaved_with_intervals() -> None:
    config = torch_config(timing=True, torch_baselines=("eager", "compile", "cudagraph"), call_timeout_s=120.0)
    with Evaluator(config) as evaluator:
        ev = evaluator.evaluate(find_task("relu"), (HOSTILE / "cuda_relu.py").read_text(), "cuda")
    assert ev.status == "correct", (ev.message, ev.integrity)
    assert {"candidate", "eager", "compile", "cudagraph"} <= set(ev.timings), ev.integrity
    for name in ("eager", "compile", "cudagraph"):
        s = ev.speedups[name]
        assert s["ci_low"] <= s["value"] <= s["ci_high"]
    assert "setup:compile" in ev.seconds
    # An honest copy-bound ReLU stays under the copy bandwidth's floor and above the gate.
    assert 0 < ev.roofline["fraction_of_floor"] < 1.6


def test_build_cache_reuses_extensions(judge) -> None:
    first = run(judge, "relu", (HOSTILE / "cuda_relu.py").read_text())
    second = run(judge, "relu", (HOSTILE / "cuda_relu.py").read_text())
    assert first.status == second.status == "correct"
    assert second.compile["builds"] and all(b["cached"] for b in second.compile["builds"])


def test_builds_happen_before_the_device_turn_and_the_light_header_falls_back(tmp_path) -> None:
    """evaluate_many builds every extension on the CPU pool first: the worker's request finds it
    built. A CUDA source that needs pybind11 is compiled again against torch's full header."""
    cuda = (HOSTILE / "cuda_relu.py").read_text()
    needs_pybind = cuda.replace('cuda_sources="""', 'cuda_sources="""\n#include <torch/extension.h>\n'
                                'namespace py = pybind11;\nstatic_assert(sizeof(py::object) > 0, "pybind11");\n', 1)
    needs_pybind = needs_pybind.replace('name="relu_cuda"', 'name="relu_cuda_pybind"')
    relu = find_task("relu")
    # a fresh cache: every build is cold
    with Evaluator(torch_config(call_timeout_s=60.0, cache_dir=str(tmp_path))) as evaluator:
        evs = evaluator.evaluate_many([(relu, cuda, "cuda"), (relu, (HOSTILE / "bare_relu.cu").read_text(), "cuda"),
                                       (relu, needs_pybind, "cuda")])  # fmt: skip
    for ev in evs:
        assert ev.status == "correct", (ev.status, ev.message)
        (build,) = ev.compile["builds"]
        assert build["prebuilt"] and build["waited_s"] < 1.0, build
        assert ev.seconds["build_wait"] < 1.0
    assert [ev.compile["builds"][0]["light"] for ev in evs] == [True, True, False]
    assert "nvcc_full" in evs[2].compile["builds"][0]["phases"]
