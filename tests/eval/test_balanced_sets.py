"""Every input set weighs the same in a timing's summary, whatever round the timing stopped in.

Two input sets of different cost (spmv_csr's have different longest rows) rotate in shuffled blocks.
The interval stop rule and the final checked round after it leave one set a sample ahead, and a median
of the pooled samples then lands on one set's cost or the other's. The reported median is the mean of
the per-set medians instead (stats.summarize with the samples' sets), and so is everything derived
from it. Deterministic: the schedule and stop rule are the worker's own, driven by a fake clock and
recorded per-set costs."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from regrapht.eval import EvalConfig
from regrapht.eval.batch import restate_serial
from regrapht.eval.record import Evaluation
from regrapht.eval.reference import BenchReference, RefCase
from regrapht.eval.runner import WorkerOutcome
from regrapht.eval.stats import SetSamples, balanced_quantile, speedup, summarize
from regrapht.eval.stop_rule import INTERVAL, stop_reason
from regrapht.eval.timing_plan import CheckSchedule
from regrapht.eval.timing_verdict import TimingJudge

# Recorded per-set costs (seconds a call): set 1 is three times set 0, as a power-law matrix's longest
# row makes it; the naive baseline is twice the candidate on each set.
COST = {"candidate": (1.0e-3, 3.0e-3), "naive": (2.0e-3, 6.0e-3)}
SPEC = {
    "max_rounds": 400,
    "min_rounds": 10,
    "budget_s": 1.0,
    "target_rse": 1e-12,  # the first rule never ends these timings: the interval rule does
    "min_s": 0.0,
    "warmup_rounds": 3,
    "check_libs": ["candidate"],
    "libs": ["candidate", "naive"],
    "interval": {"paired_with": "candidate", "halfwidth": 0.005, "own_halfwidth": 0.01, "floor_rounds": 6},
}


def _cost(lib: str, set_index: int, round_index: int) -> float:
    # +-0.2% of deterministic jitter: a spread, but far inside the interval rule's 1%
    return COST[lib][set_index] * (1 + 0.001 * ((round_index * 7 + len(lib)) % 5 - 2))


def simulated_timing(seed: int) -> tuple[dict[str, dict[str, list]], list[dict], str | None]:
    """The worker's rounds (timing_loop.TimingRun.run's control flow) on a fake clock: samples,
    checked calls, and why the timing stopped."""
    schedule = CheckSchedule(SPEC, np.random.default_rng(seed), 2, None)
    samples: dict[str, dict[str, list]] = {lib: {"host": [], "event": [], "set": []} for lib in SPEC["libs"]}
    checks: list[dict] = []
    clock = 0.0
    round_index, reason = 0, None
    while True:
        set_index = schedule.sequence[round_index]
        for lib in SPEC["libs"]:
            cost = _cost(lib, set_index, round_index)
            clock += cost
            if schedule.timed(round_index):
                for key in ("host", "event"):
                    samples[lib][key].append(cost)
                samples[lib]["set"].append(set_index)
            if schedule.checked(lib, round_index):
                checks.append({"lib": lib, "round": round_index, "set": set_index, "late": {},
                               "final": schedule.final(round_index)})  # fmt: skip
        if schedule.final(round_index):
            return samples, checks, reason
        round_index += 1
        schedule.next_round(round_index, clock)
        if schedule.stop_after is None:
            reason = stop_reason(samples, SPEC, clock, round_index, schedule.timed_rounds(round_index))
            if reason is not None:
                schedule.stop(round_index)


def timings_with_each_set_ahead() -> dict[int, dict[str, dict[str, list]]]:
    """One simulated timing in which set 0 ends a sample ahead, one in which set 1 does."""
    found: dict[int, dict[str, dict[str, list]]] = {}
    for seed in range(200):
        samples, _, reason = simulated_timing(seed)
        assert reason == INTERVAL
        sets = samples["candidate"]["set"]
        counts = [sets.count(0), sets.count(1)]
        if counts[0] != counts[1]:
            found.setdefault(int(np.argmax(counts)), samples)
        if len(found) == 2:
            return found
    raise AssertionError("no seed left each set ahead")


def test_the_pooled_median_lands_on_one_sets_cost_and_the_balanced_one_does_not() -> None:
    ahead = timings_with_each_set_ahead()
    pooled = {s: float(np.median(samples["candidate"]["host"])) for s, samples in ahead.items()}
    # the flaw being fixed: whichever set is ahead decides the pooled median
    assert pooled[0] == pytest.approx(1.0e-3, rel=0.01) and pooled[1] == pytest.approx(3.0e-3, rel=0.01)
    for samples in ahead.values():
        s = samples["candidate"]
        summary = summarize(s["host"], s["host"], s["event"], s["set"])
        assert summary.median_s == pytest.approx(2.0e-3, rel=0.005)  # (1 + 3) / 2
        assert summary.host_median_s == pytest.approx(2.0e-3, rel=0.005)
        assert summary.event_median_s == pytest.approx(2.0e-3, rel=0.005)
        assert summary.mean_s == pytest.approx(2.0e-3, rel=0.005)
        # the spread within each set (0.2%), not the sets' fixed difference
        assert summary.iqr_s < 0.005 * summary.median_s
        assert summary.rse < 0.002


def _bench(tmp_path: Path) -> BenchReference:
    expected = np.linspace(-1.0, 1.0, 64, dtype=np.float32)
    out = tmp_path / "out.bin"
    expected.tofile(out)
    sets = [RefCase(f"bench set {s + 1}", {"n": 64}, s, tmp_path, {}, {"x": 256, "out": 256}, {"out": expected})
            for s in range(2)]  # fmt: skip
    return BenchReference(tmp_path, sets, [8.0e-3] * 5)


def _judged(tmp_path: Path, vec_scale, samples: dict, checks: list[dict], **config) -> tuple[Evaluation, SetSamples | None]:
    files = {"out": str(tmp_path / "out.bin")}
    outcome = WorkerOutcome()
    outcome.messages.append({"event": "timing", "samples": samples, "hold_s": 0.0, "check_s": 0.0,
                             "checks": [{**c, "files": files} for c in checks]})  # fmt: skip
    ev = Evaluation(task_id=vec_scale.id, target="cpu", status="correct", message="", candidate_sha256="")
    judge = TimingJudge(EvalConfig(cache_dir=str(tmp_path), **config), b"balanced-sets-secret")
    return ev, judge.judge(ev, vec_scale, "cpu", _bench(tmp_path), outcome)


def test_a_judged_timing_reports_the_same_median_whichever_set_is_ahead(tmp_path: Path, vec_scale) -> None:
    records = []
    for seed in range(200):
        samples, checks, _ = simulated_timing(seed)
        sets = samples["candidate"]["set"]
        if sets.count(0) != sets.count(1) and (not records or records[0][1] != (sets.count(0) > sets.count(1))):
            ev, returned = _judged(tmp_path, vec_scale, samples, checks)
            assert ev.status == "correct", ev.message
            records.append((ev, sets.count(0) > sets.count(1), returned, sets))
        if len(records) == 2:
            break
    assert len(records) == 2
    for ev, _, returned, sets in records:
        cand = ev.timings["candidate"]
        assert cand["median_s"] == pytest.approx(2.0e-3, rel=0.005)
        assert ev.timings["naive"]["median_s"] == pytest.approx(4.0e-3, rel=0.005)
        # speedups divide balanced medians: naive is 2x on each set, serial 8 ms over 2 ms
        assert ev.speedups["naive"]["value"] == pytest.approx(2.0, rel=0.01)
        assert ev.speedups["naive"]["ci_low"] <= ev.speedups["naive"]["value"] <= ev.speedups["naive"]["ci_high"]
        assert ev.speedups["serial"]["value"] == pytest.approx(4.0, rel=0.01)
        assert ev.speedups["naive"]["paired"] == pytest.approx(2.0, rel=0.01)
        # the samples handed back for a batch's restated serial speedup keep their sets
        assert returned is not None and returned.sets == sets
    first, second = records[0][0], records[1][0]
    assert first.timings["candidate"]["median_s"] == pytest.approx(second.timings["candidate"]["median_s"], rel=0.005)


def test_a_restated_serial_speedup_stays_balanced(tmp_path: Path, vec_scale) -> None:
    samples, checks, _ = simulated_timing(next(s for s in range(200) if _uneven(s)))
    ev, returned = _judged(tmp_path, vec_scale, samples, checks)
    assert returned is not None
    bench = _bench(tmp_path)
    bench.serial_samples = [6.0e-3] * 5  # a settled baseline: 6 ms over the balanced 2 ms
    assert restate_serial(ev, returned, vec_scale, bench, b"balanced-sets-secret")
    assert ev.speedups["serial"]["value"] == pytest.approx(3.0, rel=0.01)


def _uneven(seed: int) -> bool:
    sets = simulated_timing(seed)[0]["candidate"]["set"]
    return sets.count(0) != sets.count(1)


def test_one_set_or_no_sets_is_the_plain_pooled_summary() -> None:
    rng = np.random.default_rng(3)
    values = list(rng.lognormal(-7, 0.1, 41))
    plain = summarize(values, values, values)
    assert plain.median_s == float(np.median(values))
    assert plain.q1_s == float(np.percentile(values, 25)) and plain.q3_s == float(np.percentile(values, 75))
    assert plain.rse == pytest.approx(float(np.std(values, ddof=1) / np.sqrt(41) / np.mean(values)))
    assert summarize(values, values, values, [0] * 41) == plain
    assert summarize(values, values, values, [0, 1]) == plain  # labels that do not match: pooled
    base = list(np.asarray(values) * 2)
    assert speedup(base, values, "b", seed=5) == speedup(base, values, "b", seed=5, candidate_sets=[1] * 41)


def test_balanced_quantiles_and_a_stratified_bootstrap() -> None:
    cheap, dear = [1.0, 1.1, 0.9, 1.0, 1.05], [3.0, 3.1, 2.9]
    values, sets = cheap + dear, [0] * 5 + [1] * 3
    assert balanced_quantile(values, sets, 50) == pytest.approx((1.0 + 3.0) / 2)
    fast = [v / 2 for v in values]
    result = speedup(values, fast, "x", seed=1, baseline_sets=sets, candidate_sets=sets)
    assert result.value == pytest.approx(2.0)
    # each resample keeps both sets: the interval stays near 2, never swinging to 3 / 0.5 or 1 / 1.5
    assert 1.8 < result.ci_low <= 2.0 <= result.ci_high < 2.2


def test_the_reward_never_divides_by_the_library(tmp_path: Path, vec_scale) -> None:
    """library.cu is timed to looser bounds, for information: a reward_baseline naming it is refused
    in favour of serial, and naive.cu stays usable."""
    samples, checks, _ = simulated_timing(0)
    as_library = {"candidate": samples["candidate"], "library": samples["naive"]}
    ev, _ = _judged(tmp_path, vec_scale, as_library, checks, reward_baseline="library")
    assert ev.status == "correct" and "library" in ev.speedups
    assert ev.reward_baseline == "serial"
    ev, _ = _judged(tmp_path, vec_scale, samples, checks, reward_baseline="naive")
    assert ev.reward_baseline == "naive"
