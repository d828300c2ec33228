"""The dispatch gate (eval/torch_verdicts.py, hidden_dispatch): behind the torch hold a forward's host
time until it returns is in no event time, so host work done there would be free. What a candidate's
dispatch takes beyond an honest launch path's allowance (from eager's, and a compiled baseline's, in
the same process) is counted in its time. On the cpu target there is no hold (the call is timed on the
host's clock, dispatch and all), so the gate's logic is tested here on recorded timings: the H100's
launch paths of session 13, and a real cpu worker's dispatch of a forward that does host work."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("torch")

from regrapht.eval import EvalConfig, Evaluator, TimingConfig  # noqa: E402
from regrapht.eval.record import Evaluation  # noqa: E402
from regrapht.eval.torch_verdicts import DISPATCH_MARGIN_S, hidden_dispatch, judge_timing  # noqa: E402
from regrapht.tasks import find_task  # noqa: E402

from .test_torch_cpu import HOSTILE, RELU_EXAMPLES, torch_config  # noqa: E402

HOLD_S = 300e-6
# Session 13 call C (docs/benchmarks.md, benchmarks/results/s13/c/g0/repeat_hold.txt): relu's honest
# Triton candidate and eager behind the 300 us hold on an H100, median dispatch in us per evaluation.
H100_TRITON_AND_EAGER_US = [(82.0, 37.4), (53.9, 25.5), (108.2, 43.3), (39.3, 19.4), (43.3, 21.1),
                            (40.7, 20.3), (42.9, 20.8), (99.8, 53.9), (68.0, 30.3), (56.2, 25.4)]  # fmt: skip


def _dispatch(candidate_us: float, eager_us: float, **others_us: float) -> dict[str, dict[str, list[float]]]:
    samples = {"candidate": candidate_us, "eager": eager_us, **others_us}
    return {name: {"dispatch": [us * 1e-6] * 7} for name, us in samples.items()}


@pytest.mark.parametrize(("candidate_us", "eager_us"), H100_TRITON_AND_EAGER_US)
def test_honest_triton_launch_paths_measured_on_an_h100_are_not_counted(candidate_us, eager_us) -> None:
    assert hidden_dispatch(_dispatch(candidate_us, eager_us), HOLD_S) is None


def test_an_honest_load_inline_launch_and_eager_alone_are_not_counted() -> None:
    assert hidden_dispatch(_dispatch(15.0, 20.0), HOLD_S) is None  # a pybind call: shorter than eager's module call
    assert hidden_dispatch(_dispatch(20.0, 20.0), HOLD_S) is None


def test_host_work_hidden_behind_the_hold_is_counted_beyond_the_allowance() -> None:
    # ~40 us of launch and 200 us of host work, eager's path 20 us: allowed 20 + 100 us
    counted = hidden_dispatch(_dispatch(240.0, 20.0), HOLD_S)
    assert counted is not None
    assert counted["allowance_s"] == pytest.approx(20e-6 + DISPATCH_MARGIN_S)
    assert counted["counted_s"] == pytest.approx(120e-6)
    # a slower process: eager's path 54 us allows three times it
    assert hidden_dispatch(_dispatch(240.0, 54.0), HOLD_S)["counted_s"] == pytest.approx(240e-6 - 3 * 54e-6)
    # a dispatch that lasted the whole hold may have waited on the device (an honest `.item()` or
    # copy to the host), which hides nothing: not counted
    assert hidden_dispatch(_dispatch(900.0, 20.0), HOLD_S) is None
    assert hidden_dispatch(_dispatch(HOLD_S * 1e6, 20.0), HOLD_S) is None
    # a compiled baseline's longer launch path (guards, a Triton launcher) allows more
    assert hidden_dispatch(_dispatch(240.0, 20.0, compile=90.0), HOLD_S)["counted_s"] == pytest.approx(50e-6)
    # no hold (the cpu target, or a hold that could not be queued): nothing was hidden
    assert hidden_dispatch(_dispatch(240.0, 20.0), 0.0) is None
    # a worker without dispatch times (older) or without eager: nothing to compare with
    assert hidden_dispatch({"candidate": {"dispatch": [240e-6]}, "eager": {"event": [1e-4]}}, HOLD_S) is None


def _judged(candidate_dispatch_us: float) -> Evaluation:
    """A cuda timing as the worker reports it: candidate 50 us of kernels, eager 100 us, behind the hold."""
    def lib(event_us: float, dispatch_us: float) -> dict[str, list[float]]:
        host_us = max(dispatch_us, 300.0) + event_us
        return {"event": [event_us * 1e-6] * 9, "host": [host_us * 1e-6] * 9, "dispatch": [dispatch_us * 1e-6] * 9,
                "set": [0, 1] * 4 + [0]}  # fmt: skip

    timing = {"setup": {}, "problems": [], "hold_s": HOLD_S, "bandwidth_bytes_per_s": None,
              "samples": {"candidate": lib(50.0, candidate_dispatch_us), "eager": lib(100.0, 20.0)}}  # fmt: skip
    ev = Evaluation("relu", "cuda", "correct", "", "0")
    config = EvalConfig(timing_config=TimingConfig(torch_hold_s=HOLD_S))
    judge_timing(ev, find_task("relu"), "cuda", timing, config)
    return ev


def test_hidden_host_work_earns_nothing_over_eager() -> None:
    honest = _judged(45.0)
    assert honest.status == "correct" and "dispatch_counted" not in honest.timings["candidate"]
    assert honest.speedups["eager"]["value"] == pytest.approx(2.0)
    assert not any("dispatch" in note for note in honest.integrity)
    hiding = _judged(240.0)
    assert hiding.status == "correct", hiding.message
    cand = hiding.timings["candidate"]
    assert cand["dispatch_counted"]["counted_s"] == pytest.approx(120e-6)
    assert cand["median_s"] == pytest.approx(170e-6)  # 50 us of kernels + 120 us counted
    assert cand["event_median_s"] == pytest.approx(50e-6)  # what the GPU measured, as it was
    assert hiding.speedups["eager"]["value"] == pytest.approx(100 / 170)
    assert any("hid host work behind the 300 us hold" in note for note in hiding.integrity)


def test_a_cpu_workers_dispatch_holds_the_host_work_done_in_forward() -> None:
    """The worker's dispatch time (the forward's host time, as it is measured around a held call on
    cuda) holds host work done inside forward, and the gate counts it from those recorded times. On
    cpu itself nothing is hidden (no hold, host timing), and eager's multi-threaded path is no launch
    path to compare with: the honest C++ candidate's dispatch stands for the reference's here."""
    config = torch_config(timing=True, torch_baselines=("eager",),
                          timing_config=TimingConfig(budget_s=0.3, min_rounds=5, min_s=0.05, torch_hold_s=HOLD_S))  # fmt: skip
    with Evaluator(config) as evaluator:
        honest = evaluator.evaluate(find_task("relu"), (RELU_EXAMPLES / "cpp_relu.py").read_text(), "cpu")
        busy = evaluator.evaluate(find_task("relu"), (Path(HOSTILE) / "cpp_relu_host_work.py").read_text(), "cpu")
    for ev in (honest, busy):
        assert ev.status == "correct", (ev.status, ev.message)
        assert "dispatch_counted" not in ev.timings["candidate"]  # no hold on cpu: the host time counted it all
    honest_s = honest.timings["candidate"]["dispatch_median_s"]
    busy_s = busy.timings["candidate"]["dispatch_median_s"]
    assert busy_s - honest_s > 5e-3, (busy.timings["candidate"], honest.timings["candidate"])
    # the recorded dispatch times, judged as if a hold twice the busy forward's had hidden them
    recorded = {"candidate": {"dispatch": [busy_s]}, "eager": {"dispatch": [honest_s]}}
    counted = hidden_dispatch(recorded, 2 * busy_s)
    assert counted is not None
    assert counted["allowance_s"] == pytest.approx(max(3 * honest_s, honest_s + DISPATCH_MARGIN_S))
    assert counted["counted_s"] == pytest.approx(busy_s - counted["allowance_s"])
    # and the honest candidate's own times are not counted against themselves
    assert hidden_dispatch({"candidate": {"dispatch": [honest_s]}, "eager": {"dispatch": [honest_s]}}, 2 * busy_s) is None


def test_a_torch_timing_weighs_its_input_sets_the_same() -> None:
    """The torch worker alternates two sets and drops audited rounds, so the sets' counts differ: its
    samples carry their sets, and the judge's medians and speedups weigh each set the same."""
    from regrapht.eval.torch_protocol import check_torch_message

    sets = [0, 1, 0, 1, 0, 0, 1, 0, 0]  # set 0 ahead (audited rounds of set 1 dropped)
    costs = {"candidate": (1e-3, 3e-3), "eager": (2e-3, 6e-3)}
    samples = {name: {"event": [c[s] for s in sets], "host": [c[s] for s in sets], "dispatch": [c[s] for s in sets],
                      "set": list(sets)} for name, c in costs.items()}  # fmt: skip
    message = {"event": "timing", "samples": samples, "setup": {}, "rounds": 9, "problems": [], "checked": 1, "hold_s": 0.0}
    assert check_torch_message(message) is message
    ev = Evaluation("relu", "cpu", "correct", "", "0")
    judge_timing(ev, find_task("relu"), "cpu", message, EvalConfig())
    assert ev.timings["candidate"]["median_s"] == pytest.approx(2e-3)  # the pooled median would be 1 ms
    assert ev.timings["eager"]["median_s"] == pytest.approx(4e-3)
    assert ev.speedups["eager"]["value"] == pytest.approx(2.0)
