"""The hold before a torch task's timed calls, on the GPU: the harness's hold kernel, loaded as the
torch worker loads it, holds torch's default stream as long as asked; a forward's host-side launch
path is timed without it and hidden behind it; an honest Triton candidate timed with it is correct
and says which hold it had."""

from __future__ import annotations

import time

import pytest

pytestmark = pytest.mark.gpu

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("no CUDA device", allow_module_level=True)

from regrapht.eval import Evaluator, TimingConfig  # noqa: E402
from regrapht.eval.compile import Compiler, default_cache_dir  # noqa: E402
from regrapht.eval.jobs import DEVICE_CHECK_SOURCE  # noqa: E402
from regrapht.eval.torch_worker import _hold_function  # noqa: E402
from regrapht.tasks import find_task  # noqa: E402

from .test_torch_cpu import RELU_EXAMPLES, torch_config  # noqa: E402


@pytest.fixture(scope="module")
def hold():
    built = Compiler(default_cache_dir()).compile(DEVICE_CHECK_SOURCE.read_text(), "cuda", "regrapht_device_check", "", [])
    assert built.ok, built.diagnostics
    function = _hold_function(built.library)
    assert function is not None
    assert torch.cuda.current_stream().cuda_stream == 0, "the hold orders torch's calls only on the legacy default stream"
    return function


def _timed(fn, hold=None, hold_ns: int = 0) -> float:
    """The CUDA-event time of `fn()` from a synchronized device, with the hold queued first if given."""
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    if hold is not None:
        assert hold(hold_ns) == 0
    start.record()
    fn()
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end) * 1e3  # microseconds


def test_the_hold_lasts_as_asked_on_torchs_stream(hold) -> None:
    _timed(lambda: None, hold, 1000)  # the first launch loads the kernel: untimed
    # the hold sits ahead of the start event: time it from an event recorded before it instead
    times = []
    for _ in range(5):
        torch.cuda.synchronize()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        assert hold(200_000) == 0
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end) * 1e3)
    assert 190 <= min(times) <= 260, times


def test_the_launch_path_is_timed_from_an_idle_device_and_hidden_behind_the_hold(hold) -> None:
    x = torch.randn(1 << 20, device="cuda")

    def slow_launch() -> None:  # 150 us of host work before a ~10 us kernel, as a slow Python launcher
        until = time.perf_counter() + 150e-6
        while time.perf_counter() < until:
            pass
        torch.relu(x)

    slow_launch()
    bare = min(_timed(slow_launch) for _ in range(5))
    held = min(_timed(slow_launch, hold, 400_000) for _ in range(5))
    assert bare >= 140, bare
    assert held < 60, held


@pytest.mark.skipif(not __import__("importlib").util.find_spec("triton"), reason="no Triton")
def test_an_honest_triton_candidate_timed_behind_the_hold() -> None:
    config = torch_config(timing=True, call_timeout_s=60.0, torch_baselines=("eager",),
                          timing_config=TimingConfig(budget_s=1.0, torch_hold_s=300e-6))  # fmt: skip
    with Evaluator(config) as evaluator:
        ev = evaluator.evaluate(find_task("relu"), (RELU_EXAMPLES / "triton_relu.py").read_text(), "cuda")
    assert ev.status == "correct", (ev.status, ev.message)
    for name in ("candidate", "eager"):
        assert ev.timings[name]["hold_s"] == pytest.approx(300e-6)
        assert ev.timings[name]["dispatch_median_s"] < 300e-6, ev.timings[name]
    # both launch paths hidden: the two kernels stream the same 512 MiB, within 10% of each other
    assert 0.9 < ev.speedups["eager"]["value"] < 1.1, ev.speedups["eager"]
