"""The timing loop's report and the interval stop rule on a real GPU.

Run on the GPU machine: pytest -m gpu tests/eval/test_gpu_timing_loop.py
"""

from __future__ import annotations

import pytest

from regrapht.eval import Evaluator
from regrapht.eval.stop_rule import INTERVAL, STOP_REASONS
from tests.eval.conftest import candidate, quick_config

pytestmark = pytest.mark.gpu


def _evaluate(build_cache, vec_scale, **timing):
    config = quick_config(build_cache, call_timeout_s=15.0)
    for key, value in timing.items():
        setattr(config.timing_config, key, value)
    with Evaluator(config) as ev:
        return ev.evaluate(vec_scale, candidate("correct.cu", "hostile_cuda"), "cuda")


def test_the_record_says_how_the_timing_loop_went(build_cache, vec_scale):
    ev = _evaluate(build_cache, vec_scale)
    assert ev.status == "correct", ev.message
    cand = ev.timings["candidate"]
    assert cand["stop"] in STOP_REASONS and cand["rounds"] >= cand["n"] + cand["warmup_rounds"]
    parts = [ev.seconds[f"timing_{p}"] for p in ("stage", "sync", "hold", "call", "rest")]
    assert all(p >= 0 for p in parts) and sum(parts) <= ev.seconds["timing"] * 1.001
    # On the device the synchronization before each call waits for its staged inputs, flush and
    # poison, and the calls' host times are bracketed by synchronization: neither is free.
    assert ev.seconds["timing_sync"] > 0 and ev.seconds["timing_call"] > 0


def test_the_interval_rule_ends_a_steady_timing_with_the_speedup_the_budget_gives(build_cache, vec_scale):
    """min_rounds out of reach: the interval rule ends the timing; its speedup over naive agrees with
    a timing run to its round limit under the mean's rule alone. vec_scale's bench calls take a few
    microseconds (2% jitter is usual there), so the intervals asked for are 2-3%, not the defaults."""
    fast = _evaluate(
        build_cache,
        vec_scale,
        min_rounds=300,
        max_rounds=400,
        budget_s=30.0,
        interval_halfwidth=0.02,
        interval_own_halfwidth=0.03,
    )
    assert fast.status == "correct", fast.message
    assert fast.timings["candidate"]["stop"] == INTERVAL
    assert fast.timings["candidate"]["n"] < 300
    long = _evaluate(
        build_cache, vec_scale, min_rounds=300, max_rounds=300, budget_s=30.0, interval_stop=False
    )
    assert long.status == "correct", long.message
    ratio = fast.speedups["naive"]["value"] / long.speedups["naive"]["value"]
    assert abs(ratio - 1) < 0.05, (fast.speedups["naive"], long.speedups["naive"])


def test_a_batch_stages_expected_outputs_before_its_workers_start(build_cache, vec_scale):
    """Bench data built ahead: the judge has the expected outputs before the worker starts, so the
    worker's own wait for them is a cache hit; the outputs are still judged on the device."""
    source = candidate("correct.cu", "hostile_cuda")
    with Evaluator(quick_config(build_cache, call_timeout_s=15.0)) as ev:
        ev.bench_reference(vec_scale)  # built before the batch
        first, second = ev.evaluate_many([(vec_scale, source, "cuda"), (vec_scale, source + "\n// 2\n", "cuda")])
    for record in (first, second):
        assert record.status == "correct", record.message
        assert record.timings["candidate"]["judged_on_device"] is True
        assert "judge_stage_ahead" in record.seconds and record.seconds["judge_stage"] < 0.01
