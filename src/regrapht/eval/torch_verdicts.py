"""Verdicts on a torch candidate's timing (the judge's side of eval/torch_timing.py's message): the
record's medians and speedups with intervals, the launch-path note, and the cuda gates."""

from __future__ import annotations

from typing import Any

import numpy as np

from regrapht.eval.config import EvalConfig
from regrapht.eval.record import Evaluation
from regrapht.eval.stats import speedup, summarize
from regrapht.tasks.torch_task import TorchTask

HOST_SLACK_S = 100e-6


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
    for name, s in samples.items():
        ev.timings[name] = summarize(s[primary], s["host"], s["event"]).to_dict()
        if s.get("dispatch"):  # where it is above hold_s, the excess was timed with the kernel
            dispatch = float(np.median(s["dispatch"]))
            ev.timings[name].update(dispatch_median_s=dispatch, hold_s=hold_s)
            if 0 < hold_s < dispatch:
                ev.integrity.append(f"note: {name}'s launch path ({dispatch * 1e6:.0f} us median) outlasts the "
                                    f"{hold_s * 1e6:.0f} us hold: the rest of it is timed with its kernels")  # fmt: skip
    cand = samples["candidate"][primary]
    for name, s in samples.items():
        if name != "candidate":
            ev.speedups[name] = speedup(s[primary], cand, name, seed=0).to_dict()
    if target == "cuda":
        gates(ev, task, target, timing, config)


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
