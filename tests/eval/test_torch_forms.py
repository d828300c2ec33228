"""Candidate forms, the torch source screen, and the builder's pure parts (no torch process needed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from regrapht.eval import torch_build, torch_checks, torch_forms

HOSTILE = Path(__file__).parent / "hostile_torch"
# honest candidates the README shows ship with the relu example task (joined onto HOSTILE, an absolute
# path stays itself)
RELU_EXAMPLES = Path(__file__).resolve().parents[2] / "src/regrapht/data/tasks_torch/examples/relu/candidates"


def test_forms() -> None:
    assert torch_forms.detect((HOSTILE / "cuda_relu.py").read_text(), "cuda_relu.py") == torch_forms.Form("python", None, False)
    assert torch_forms.detect((HOSTILE / RELU_EXAMPLES / "triton_relu.py").read_text()).triton
    assert torch_forms.detect((HOSTILE / "entry_relu.py").read_text()).entry == "relu"
    bare = torch_forms.detect((HOSTILE / "bare_relu.cu").read_text(), "bare_relu.cu")
    assert bare == torch_forms.Form("cuda", "relu_entry", False)


def test_bare_cuda_needs_a_declared_and_defined_entry() -> None:
    source = (HOSTILE / "bare_relu.cu").read_text()
    with pytest.raises(torch_forms.FormError, match="must declare its entry point"):
        torch_forms.detect(source.replace("// regrapht: entry = relu_entry", ""), "k.cu")
    with pytest.raises(torch_forms.FormError, match="'relu_missing' is not defined"):
        torch_forms.detect(source.replace("entry = relu_entry", "entry = relu_missing"), "k.cu")
    assert torch_forms.entry_declaration(source, "relu_entry") == "torch::Tensor relu_entry(torch::Tensor x);"


@pytest.mark.parametrize(
    ("line", "words"),
    [
        ("from torch.utils._python_dispatch import _get_current_dispatch_mode", "dispatch modes"),
        ("objs = gc.get_objects()", "interpreter's objects"),
        ("import subprocess", "processes or threads"),
        ("s = torch.cuda.Stream()", "side stream"),
        ("t = time.perf_counter()", "timer"),
        ("torch.backends.cuda.matmul.allow_tf32 = True", "global torch settings"),
    ],
)
def test_screen(line: str, words: str) -> None:
    (hit,) = torch_checks.screen_source(f"import torch\n{line}\n")
    assert hit.line == 2 and words in hit.message


def test_screen_passes_honest_candidates() -> None:
    for name in ("cuda_relu.py", RELU_EXAMPLES / "triton_relu.py", RELU_EXAMPLES / "cpp_relu.py", "bare_relu.cu"):
        assert torch_checks.screen_source((HOSTILE / name).read_text()) == [], name


def test_load_inline_arguments_become_plain_data() -> None:
    spec = torch_build.spec_from_call(
        ("ext", "int f();"), {"cuda_sources": ["__global__ void k() {}"], "functions": {"f": "doc"}, "verbose": True}
    )
    assert spec["name"] == "ext" and spec["cpp_sources"] == ["int f();"]
    assert spec["functions"] == ["f"] and spec["extra_cflags"] == []


def test_builder_refuses_cuda_on_cpu_and_bad_names(tmp_path: Path) -> None:
    spec = torch_build.spec_from_call(("e",), {"cpp_sources": "", "cuda_sources": "__global__ void k(){}", "functions": ["k"]})
    result = torch_build.build(spec, "cpu", tmp_path)
    assert not result.ok and "cannot run on the cpu target" in result.diagnostics
    spec = torch_build.spec_from_call(("e",), {"cpp_sources": "", "functions": ["k; system(\"x\")"]})
    result = torch_build.build(spec, "cpu", tmp_path)
    assert not result.ok and "is not a C++ identifier" in result.diagnostics


def _timed(tmp_path: Path, host_s: float, event_s: float, bandwidth: float):
    from regrapht.eval import EvalConfig
    from regrapht.eval.record import Evaluation
    from regrapht.eval.torch_verdicts import gates
    from regrapht.tasks import find_task

    ev = Evaluation("relu", "cuda", "correct", "", "0")
    ev.timings["candidate"] = {"median_s": event_s, "host_median_s": host_s, "event_median_s": event_s}
    gates(ev, find_task("relu"), "cuda", {"bandwidth_bytes_per_s": bandwidth}, EvalConfig())
    return ev


def test_gates_host_time_far_above_event_time(tmp_path: Path) -> None:
    ev = _timed(tmp_path, host_s=20e-3, event_s=0.2e-3, bandwidth=3e12)
    assert ev.status == "integrity_violation" and "outside it" in ev.message


def test_gates_faster_than_the_memory_floor(tmp_path: Path) -> None:
    # relu's bench moves 512 MiB: at 3 TB/s no honest kernel takes under ~0.18 ms.
    ev = _timed(tmp_path, host_s=0.02e-3, event_s=0.01e-3, bandwidth=3e12)
    assert ev.status == "integrity_violation" and "faster than physically possible" in ev.message
    honest = _timed(tmp_path, host_s=0.25e-3, event_s=0.2e-3, bandwidth=3e12)
    assert honest.status == "correct" and 0.8 < honest.roofline["fraction_of_floor"] < 1.0
