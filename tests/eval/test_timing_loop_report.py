"""The timing loop reports its rounds, why it stopped, and where its host time went (cpu target)."""

from __future__ import annotations

from regrapht.eval import verdicts
from regrapht.eval.stop_rule import INTERVAL, STOP_REASONS


def _run(build_cache, vec_scale, **timing):
    from regrapht.eval import Evaluator
    from regrapht.eval.jobs import params as _params
    from tests.eval.conftest import candidate, quick_config

    config = quick_config(build_cache)
    for key, value in timing.items():
        setattr(config.timing_config, key, value)
    with Evaluator(config) as evaluator:
        built = evaluator.compiler.compile(
            candidate("correct.cpp"), "cpu", vec_scale.function, _params(vec_scale), ["n", "a", "x", "out"]
        )
        return evaluator.run_candidate(
            vec_scale, "cpu", {"candidate": built.library}, evaluator.case_reference(vec_scale)
        )


def test_the_loop_reports_its_rounds_its_stop_and_its_parts(build_cache, vec_scale):
    run = _run(build_cache, vec_scale)
    timing = run.outcome.last("timing")
    loop = timing["loop"]
    rounds = len(run.outcome.all("timing_progress"))
    assert loop["rounds"] == rounds
    assert len(timing["samples"]["candidate"]["event"]) == rounds - loop["warmup"]
    assert loop["stop"] in STOP_REASONS and loop["stop_round"] < rounds
    parts = [loop[f"{p}_s"] for p in ("stage", "sync", "hold", "call", "check", "report", "rule", "rest")]
    assert all(p >= 0 for p in parts) and sum(parts) <= timing["seconds"] * 1.001 + 1e-6
    assert loop["report_s"] > 0 and loop["rule_s"] > 0  # every round sends progress; all but the last ask the rule
    record = verdicts.phases(run.outcome)
    assert record["timing_report"] == round(loop["report_s"], 4) and record["timing_rule"] == round(loop["rule_s"], 4)
    assert loop["call_s"] >= sum(timing["samples"]["candidate"]["host"])  # the timed calls lie inside


def test_a_steady_kernel_stops_on_its_median_interval_before_min_rounds(build_cache, vec_scale):
    """min_rounds far away and a budget of minutes: only the interval rule can end the timing, once
    its floor of timed rounds and min_s are reached (a half-width of 5 in logs: any steady kernel
    meets it, on a loaded machine too)."""
    run = _run(
        build_cache,
        vec_scale,
        min_rounds=300,
        max_rounds=400,
        budget_s=120.0,
        min_s=0.0,
        interval_own_halfwidth=5.0,
        interval_floor_rounds=6,
    )
    loop = run.outcome.last("timing")["loop"]
    assert loop["stop"] == INTERVAL
    assert loop["stop_round"] - loop["warmup"] == 6  # the floor: the first round the rule may apply
    off = _run(build_cache, vec_scale, min_rounds=20, max_rounds=25, budget_s=120.0, interval_stop=False)
    assert off.outcome.last("timing")["loop"]["stop"] != INTERVAL


def test_a_baseline_timed_beside_the_candidate_gets_a_paired_speedup_too(build_cache, vec_scale):
    """On the cpu target, a baseline timed beside the candidate (a previous step's code: the same
    source here) has its speedup as a ratio of medians and from the paired rounds, both near 1, and
    the interval rule weighs the pair (the timing stops by a named rule)."""
    from regrapht.eval import Evaluator
    from tests.eval.conftest import candidate, quick_config

    source = candidate("correct.cpp")
    with Evaluator(quick_config(build_cache)) as evaluator:
        ev = evaluator.evaluate(vec_scale, source, "cpu", baselines={"previous": source + "\n// the same\n"})
    assert ev.status == "correct", ev.message
    previous = ev.speedups["previous"]
    assert previous["paired"] is not None and 0.5 < previous["paired"] < 2.0
    assert 0.5 < previous["value"] < 2.0
    assert ev.timings["candidate"]["stop"] in STOP_REASONS
