"""The hold before a torch task's timed calls (TimingConfig.torch_hold_s, eval/torch_timing.py): the
spec carries it on cuda only, the worker reports what it queued and each call's dispatch time, the
parent bounds the reported hold by the configured one and widens the host-time gate by it alone."""

from __future__ import annotations

from concurrent.futures import Future
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from regrapht.eval import EvalConfig, Evaluator, TimingConfig  # noqa: E402
from regrapht.eval.compile import CompileResult  # noqa: E402
from regrapht.eval.protocol import ProtocolError  # noqa: E402
from regrapht.eval.record import Evaluation  # noqa: E402
from regrapht.eval.torch_judge import TorchJudge, _library  # noqa: E402
from regrapht.eval.torch_protocol import check_torch_message  # noqa: E402
from regrapht.eval.torch_verdicts import gates, judge_timing  # noqa: E402
from regrapht.eval.torch_worker import _hold_function  # noqa: E402
from regrapht.tasks import find_task  # noqa: E402

from .test_torch_cpu import RELU_EXAMPLES, torch_config  # noqa: E402


def _judge(tmp_path: Path, hold_s: float, hold_library=None) -> TorchJudge:
    return TorchJudge(EvalConfig(timing_config=TimingConfig(torch_hold_s=hold_s)), b"s", tmp_path, hold_library=hold_library)


def _gated(judge: TorchJudge, host_s: float, event_s: float, reported_hold_s: float) -> Evaluation:
    ev = Evaluation("relu", "cuda", "correct", "", "0")
    ev.timings["candidate"] = {"median_s": event_s, "host_median_s": host_s, "event_median_s": event_s}
    gates(ev, find_task("relu"), "cuda", {"bandwidth_bytes_per_s": 3e12, "hold_s": reported_hold_s}, judge.config)
    return ev


def test_the_host_gate_allows_the_hold_and_no_more(tmp_path: Path) -> None:
    # 0.2 ms kernel behind a 0.3 ms hold: the host clock saw both (0.5 ms), within 1.5 x 0.2 + 0.1 + 0.3.
    assert _gated(_judge(tmp_path, 3e-4), host_s=5e-4, event_s=2e-4, reported_hold_s=3e-4).status == "correct"
    # the same host time with no hold asked for is hidden work
    flagged = _gated(_judge(tmp_path, 0.0), host_s=5e-4, event_s=2e-4, reported_hold_s=3e-4)
    assert flagged.status == "integrity_violation" and "outside it" in flagged.message
    # a worker claiming a longer hold than the run asked for gains nothing from the claim
    claimed = _gated(_judge(tmp_path, 3e-4), host_s=5e-3, event_s=2e-4, reported_hold_s=1.0)
    assert claimed.status == "integrity_violation"
    # a held run with work beyond the hold on the host's clock is still caught
    assert _gated(_judge(tmp_path, 3e-4), host_s=1e-3, event_s=2e-4, reported_hold_s=3e-4).status == "integrity_violation"


def test_the_spec_holds_on_cuda_only(tmp_path: Path) -> None:
    judge = _judge(tmp_path, 3e-4)
    task = find_task("relu")
    assert judge.timing_spec(task, "cuda", 50 << 20)["hold_s"] == 3e-4
    assert judge.timing_spec(task, "cpu", 0)["hold_s"] == 0.0
    assert _judge(tmp_path, 0.0).timing_spec(task, "cuda", 50 << 20)["hold_s"] == 0.0


def test_the_library_is_built_only_where_a_hold_is_asked_for(tmp_path: Path) -> None:
    calls = []

    def build() -> Future:
        calls.append(1)
        future: Future = Future()
        future.set_result(CompileResult(True, "cuda", "/x/libcheck.so", "", "", 0.0, True, [], "k"))
        return future

    assert _judge(tmp_path, 3e-4, build)._hold_build("cpu") is None
    assert _judge(tmp_path, 0.0, build)._hold_build("cuda") is None
    assert not calls
    assert _library(_judge(tmp_path, 3e-4, build)._hold_build("cuda")) == "/x/libcheck.so"
    assert calls == [1]


def test_a_failed_or_broken_build_means_no_hold() -> None:
    failed: Future = Future()
    failed.set_result(CompileResult(False, "cuda", None, "nvcc: error", "", 0.0, False, [], "k"))
    broken: Future = Future()
    broken.set_exception(OSError("no nvcc"))
    assert _library(None) is None and _library(failed) is None and _library(broken) is None


def test_the_worker_loads_no_hold_without_a_usable_library(tmp_path: Path) -> None:
    assert _hold_function(None) is None
    assert _hold_function(str(tmp_path / "missing.so")) is None
    (tmp_path / "junk.so").write_bytes(b"not a library")
    assert _hold_function(str(tmp_path / "junk.so")) is None


def test_the_timing_message_carries_the_hold_and_dispatch_times() -> None:
    message = {"event": "timing", "samples": {"candidate": {"event": [1e-4], "host": [2e-4], "dispatch": [3e-5]}},
               "setup": {}, "rounds": 1, "problems": [], "checked": 1, "hold_s": 3e-4}  # fmt: skip
    assert check_torch_message(message) is message
    with pytest.raises(ProtocolError, match="hold_s"):
        check_torch_message({**message, "hold_s": "3e-4"})


def test_cpu_timing_records_dispatch_and_no_hold() -> None:
    # On cpu the call is timed on the host's clock, launch and all: a hold would cover nothing, and
    # none is queued even when the configuration asks for one.
    config = torch_config(timing=True, timing_config=TimingConfig(budget_s=0.3, min_rounds=5, min_s=0.05, torch_hold_s=3e-4))
    with Evaluator(config) as evaluator:
        ev = evaluator.evaluate(find_task("relu"), (RELU_EXAMPLES / "cpp_relu.py").read_text(), "cpu")
    assert ev.status == "correct", (ev.status, ev.message)
    for name in ("candidate", "eager"):
        timing = ev.timings[name]
        assert timing["hold_s"] == 0.0
        assert 0 < timing["dispatch_median_s"] <= timing["host_median_s"]


def test_a_launch_path_longer_than_the_hold_is_noted(tmp_path: Path) -> None:
    def judged(dispatch_s: float) -> Evaluation:
        samples = {name: {"event": [2e-4] * 5, "host": [5e-4] * 5, "dispatch": [dispatch_s] * 5} for name in ("candidate", "eager")}
        timing = {"setup": {}, "problems": [], "samples": samples, "hold_s": 3e-4}
        ev = Evaluation("relu", "cpu", "correct", "", "0")
        judge_timing(ev, find_task("relu"), "cpu", timing, _judge(tmp_path, 3e-4).config)
        return ev

    short = judged(40e-6)
    assert short.timings["candidate"]["dispatch_median_s"] == pytest.approx(40e-6) and not short.integrity
    long = judged(500e-6)
    assert long.status == "correct"
    assert "note: candidate's launch path (500 us median) outlasts the 300 us hold" in " ".join(long.integrity)
