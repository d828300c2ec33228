"""The dispatch gate on the GPU, behind the real 300 us hold: a Triton candidate that busy-waits
~200 us on the host in its forward has what its dispatch took beyond an honest launch path counted
in its time (its speedup over eager falls accordingly), while honest Triton and load_inline
candidates are not counted at all."""

from __future__ import annotations

import importlib.util

import pytest

pytestmark = pytest.mark.gpu

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("no CUDA device", allow_module_level=True)

from regrapht.eval import Evaluator, TimingConfig  # noqa: E402
from regrapht.eval.torch_verdicts import DISPATCH_MARGIN_S, DISPATCH_RATIO  # noqa: E402
from regrapht.tasks import find_task  # noqa: E402

from .test_torch_cpu import HOSTILE, RELU_EXAMPLES, torch_config  # noqa: E402

needs_triton = pytest.mark.skipif(not importlib.util.find_spec("triton"), reason="no Triton")


@pytest.fixture(scope="module")
def held():
    # eager alone: the allowance is then eager's (a compiled baseline's launch path would widen it)
    config = torch_config(timing=True, call_timeout_s=60.0, torch_baselines=("eager",),
                          timing_config=TimingConfig(budget_s=1.0, torch_hold_s=300e-6))  # fmt: skip
    with Evaluator(config) as evaluator:
        yield lambda path: evaluator.evaluate(find_task("relu"), path.read_text(), "cuda")


@pytest.mark.parametrize(
    "path",
    [pytest.param(RELU_EXAMPLES / "triton_relu.py", marks=needs_triton), HOSTILE / "cuda_relu.py"],
    ids=lambda p: p.name,
)
def test_honest_triton_and_load_inline_candidates_are_not_counted(held, path) -> None:
    ev = held(path)
    assert ev.status == "correct", (ev.status, ev.message)
    cand = ev.timings["candidate"]
    assert "dispatch_counted" not in cand, (cand, ev.timings["eager"])
    assert not any("hid host work" in note for note in ev.integrity), ev.integrity
    assert cand["median_s"] == cand["event_median_s"]


@needs_triton
def test_host_work_hidden_in_a_triton_candidates_dispatch_is_counted(held) -> None:
    honest = held(RELU_EXAMPLES / "triton_relu.py")
    hiding = held(HOSTILE / "triton_relu_host_work.py")
    assert honest.status == hiding.status == "correct", (hiding.status, hiding.message)
    cand, eager = hiding.timings["candidate"], hiding.timings["eager"]
    assert cand["dispatch_median_s"] > 200e-6, cand  # the busy-wait is in its dispatch
    counted = cand.get("dispatch_counted")
    assert counted is not None, (cand, eager)
    allowance = max(DISPATCH_RATIO * eager["dispatch_median_s"], eager["dispatch_median_s"] + DISPATCH_MARGIN_S)
    assert counted["allowance_s"] == pytest.approx(allowance)
    assert counted["counted_s"] == pytest.approx(min(cand["dispatch_median_s"], 300e-6) - allowance)
    assert counted["counted_s"] > 50e-6, counted
    assert cand["median_s"] == pytest.approx(cand["event_median_s"] + counted["counted_s"], rel=0.02)
    # the same kernel: hiding host work makes it slower over eager than the honest one, not as fast
    assert hiding.speedups["eager"]["value"] < 0.9 * honest.speedups["eager"]["value"], (
        hiding.speedups["eager"], honest.speedups["eager"])
