"""Verdicts on a torch candidate's timing (the judge's side of eval/torch_timing.py's message): the
record's medians and speedups with intervals, the launch-path note, the dispatch gate, and the cuda
gates."""

from __future__ import annotations

from typing import Any

from regrapht.eval.config import EvalConfig
from regrapht.eval.record import Evaluation
from regrapht.eval.stats import balanced_quantile, speedup, summarize
from regrapht.tasks.torch_task import TorchTask

HOST_SLACK_S = 100e-6

# The dispatch gate (`hidden_dispatch`). Behind the hold, a forward's host time until it returns (its
# dispatch) is not in its event time, up to the hold's length: host work done there is free. An
# honest launch path is allowed what honest ones were measured to take beside eager's in the same
# process (docs/benchmarks.md, session 13 call C: relu's Triton candidate 39-108 us against eager's
# 19-54 us over 10 processes on an H100, at most 2.5x eager's and 65 us above it; both grow together
# on a slower or busier host core): DISPATCH_RATIO times eager's, or DISPATCH_MARGIN_S above eager's
# or above a compiled baseline's (an inductor launch: guards and a Triton launcher, the path an honest
# Triton candidate takes), whichever is largest. What a candidate's dispatch hid beyond that is
# counted in its time.
DISPATCH_RATIO = 3.0
DISPATCH_MARGIN_S = 100e-6
DISPATCH_COMPILED = ("compile", "max-autotune")


def judge_timing(ev: Evaluation, task: TorchTask, target: str, timing: dict[str, Any], config: EvalConfig) -> None:
    """The torch worker's timing message into the record: each baseline's set-up, the medians, the
    speedups over every baseline, and on cuda the gates (side work off the timed stream, the floor)."""
    for name, setup in timing["setup"].items():
        if "error" in setup:
            ev.integrity.append(f"baseline {name} unavailable: {setup['error']}")
        elif name != "candidate":
            ev.seconds[f"setup:{name}"] = setup["seconds"]
    ev.seconds["warmup"] = timing["setup"].get("candidate", {}).get("seconds", 0.0)
    if timing["problems"]:
        ev.status, ev.message = "integrity_violation", timing["problems"][0]
        ev.integrity += timing["problems"]
        return
    samples = timing["samples"]
    primary = "event" if target == "cuda" else "host"
    hold_s = hold_seconds(timing, config)
    counted = hidden_dispatch(samples, hold_s) if target == "cuda" else None
    extra = counted["counted_s"] if counted else 0.0
    timed = {name: [v + extra for v in s[primary]] if name == "candidate" else s[primary] for name, s in samples.items()}
    for name, s in samples.items():
        ev.timings[name] = summarize(timed[name], s["host"], s["event"], s.get("set")).to_dict()
        if s.get("dispatch"):  # where it is above hold_s, the excess was timed with the kernel
            dispatch = _median(s, "dispatch")
            ev.timings[name].update(dispatch_median_s=dispatch, hold_s=hold_s)
            if 0 < hold_s < dispatch:
                ev.integrity.append(f"note: {name}'s launch path ({dispatch * 1e6:.0f} us median) outlasts the "
                                    f"{hold_s * 1e6:.0f} us hold: the rest of it is timed with its kernels")  # fmt: skip
    if counted:
        ev.timings["candidate"]["dispatch_counted"] = counted
        ev.integrity.append(
            f"note: the candidate's dispatch ({counted['dispatch_s'] * 1e6:.0f} us median) hid host work behind the "
            f"{hold_s * 1e6:.0f} us hold beyond an honest launch path's {counted['allowance_s'] * 1e6:.0f} us "
            f"(eager's {counted['reference_s'] * 1e6:.0f} us): {counted['counted_s'] * 1e6:.0f} us a call is "
            "counted in its time"
        )
    cand_sets = samples["candidate"].get("set")
    for name, s in samples.items():
        if name != "candidate":
            ev.speedups[name] = speedup(
                timed[name], timed["candidate"], name, seed=0, baseline_sets=s.get("set"), candidate_sets=cand_sets
            ).to_dict()
    if target == "cuda":
        gates(ev, task, target, timing, config)


def hidden_dispatch(samples: dict[str, dict[str, list[float]]], hold_s: float) -> dict[str, float] | None:
    """What the candidate's dispatch hid behind the hold beyond an honest launch path's allowance
    (see DISPATCH_RATIO): None when nothing is to be counted (no hold, no dispatch times, or within
    the allowance, or a dispatch that lasted the whole hold: it may have waited on the device)."""
    eager, own = samples.get("eager", {}), samples.get("candidate", {})
    if hold_s <= 0 or not eager.get("dispatch") or not own.get("dispatch"):
        return None
    reference = _median(eager, "dispatch")
    compiled = [_median(samples[n], "dispatch") for n in DISPATCH_COMPILED if samples.get(n, {}).get("dispatch")]
    allowance = max([DISPATCH_RATIO * reference, reference + DISPATCH_MARGIN_S] + [c + DISPATCH_MARGIN_S for c in compiled])
    dispatch = _median(own, "dispatch")
    if dispatch >= hold_s:
        # It returned no sooner than the hold ended: it may have waited on the device (an `.item()`, a
        # copy to the host), which is no hidden work and whose cost is in its event time already; a
        # wait cannot be told from host work here, so nothing is counted (docs/evaluation.md).
        return None
    counted = dispatch - allowance
    if counted <= 0:
        return None
    return {"dispatch_s": dispatch, "reference_s": reference, "allowance_s": allowance, "counted_s": counted}


def _median(samples: dict[str, list[float]], key: str) -> float:
    """The median of one kind of sample, each input set weighing the same (as the record's medians)."""
    return float(balanced_quantile(samples[key], samples.get("set"), 50))


def hold_seconds(timing: dict[str, Any], config: EvalConfig) -> float:
    """The hold the worker says it queued before each timed call, never more than the run asked for."""
    return max(0.0, min(float(timing.get("hold_s") or 0.0), config.timing_config.torch_hold_s))


def gates(ev: Evaluation, task: TorchTask, target: str, timing: dict[str, Any], config: EvalConfig) -> None:
    """The cuda gates of a timed torch candidate: host time far above its event time (work outside the
    timed stream), and a median below the physical floor."""
    cand = ev.timings["candidate"]
    # The host clock runs from before the start event: it also counts what was left of the hold.
    slack = HOST_SLACK_S + hold_seconds(timing, config)
    if cand["host_median_s"] > config.event_host_slack * cand["event_median_s"] + slack:
        ev.status = "integrity_violation"
        ev.message = (f"host time {cand['host_median_s'] * 1e3:.3f} ms is far above the CUDA-event time "
                      f"{cand['event_median_s'] * 1e3:.3f} ms on the caller's stream: work ran outside it "
                      "(a side stream or host thread)")  # fmt: skip
        return
    bandwidth = timing.get("bandwidth_bytes_per_s")
    floor_bytes = task.floor_bytes(task.bench_for(target))
    if bandwidth and floor_bytes:
        floor_s = floor_bytes / bandwidth
        ev.roofline = {"floor_s": floor_s, "bandwidth_bytes_per_s": bandwidth,
                       "fraction_of_floor": floor_s / cand["median_s"] if cand["median_s"] else None}  # fmt: skip
        if cand["median_s"] < config.plausibility_margin * floor_s:
            ev.status = "integrity_violation"
            ev.message = (f"faster than physically possible: {cand['median_s'] * 1e3:.4f} ms against a floor of "
                          f"{floor_s * 1e3:.4f} ms for {floor_bytes} bytes at the measured bandwidth")  # fmt: skip
