"""Evaluator throughput and repeatability on the GPU.

1. Throughput: a batch of candidates over every shipped task with a naive.cu (at least 10 tasks),
   cold compile cache, isolation on (one process per candidate), full verdicts and timing. The mix
   per task: naive.cu, two launch-configuration variants of it, a duplicate with a distinct comment,
   and one with a syntax error.
2. Repeatability: one kernel evaluated 10 times by independent evaluators (fresh secret, fresh
   processes); the spread of its median time, max/min - 1. With several `--holds`, one series per
   hold length, their evaluations interleaved so every series sees the same machine.

3. With `--modes bare defended`, the throughput run is made twice on one machine in one call: with
   the defences that cost time off (no OS sandbox; timed calls rotating the input sets as drawn) and
   on (the sandbox; fresh inputs, a secret perturbation per call, eval/perturb.py), so their cost is
   a ratio measured side by side. `sandbox` and `fresh` turn on one of them.

4. With `--gpus 0 0,1`, one throughput run per GPU list, in one call on one machine: the same
   candidate mix on one GPU, then spread over two by the device pool (a lane process per GPU), so
   evaluations per wall minute compare side by side. `--mixes throughput clean` adds the mix without
   its compile error (four candidates per task). On the cpu target, `--cpu-lanes 1 2` does the same
   with CPU lanes. Every run starts from the same state, printed with it: a cold compile cache, and
   a fresh serial-baseline store, or with `--baselines-first` a copy of one filled before the runs.
   Each run prints evaluations per wall minute, per GPU-minute (of workers' time, and of wall time x
   GPUs), and where a candidate's worker holds its GPU, by phase.

5. Every run also prints its timing loops: why each stopped (eval/stop_rule.py), rounds per
   candidate, the loop's host time per round by part (staging queued, the synchronization before
   each call, the hold, the calls, checks, the rest), and per task. `--stop-rules interval rse` runs
   the interval rule (the default) and the mean's RSE alone side by side.

Run on the GPU machine: PYTHONPATH=src python3 benchmarks/eval_throughput.py --out DIR
Without a GPU, `--target cpu` times serial.cpp as the candidate (no repeatability series).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import os
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path

from regrapht.eval import EvalConfig, Evaluator, toolchain, trace
from regrapht.eval.pool import open_evaluator
from regrapht.tasks import find_task

# A fixed set, so runs on different days measure the same workload.
FIXED_TASKS = [
    "saxpy",
    "sum_of_squares",
    "spmv_csr",
    "gemv",
    "histogram_u8",
    "inclusive_scan",
    "jacobi_2d",
    "row_normalize",
    "softmax_rows",
    "transpose",
]


MIXES = ("throughput", "clean")  # clean: the throughput mix without its syntax error
STOP_RULES = ("interval", "rse")


def variants(source: str, mix: str = "throughput", copies: int = 1) -> list[tuple[str, str]]:
    """naive.cu and four edits of it: two launch configurations (only where the 1D launch idiom
    `(n + 255) / 256, 256` makes that a safe edit), a recompiled duplicate, and a syntax error (left
    out of the clean mix). With `copies` above 1, the mix again that many times, each copy's texts
    with a comment of their own, so each is compiled and judged anew (more candidates per task: the
    per-task and start-up costs weigh less against the per-candidate work a lane scales)."""
    one = _variants(source, mix)
    return one + [
        (f"{label}_copy{k}", text + f"\n// copy {k} of the mix\n") for k in range(1, copies) for label, text in one
    ]


def _variants(source: str, mix: str) -> list[tuple[str, str]]:
    out = [("naive", source)]
    for size in (128, 512):
        changed = re.sub(r"\+\s*255\s*\)\s*/\s*256", f"+ {size - 1}) / {size}", source)
        changed = re.sub(r",\s*256\s*>>>", f", {size}>>>", changed)
        same_shape = changed.count(f"{size - 1}) / {size}") == changed.count(f", {size}>>>") > 0
        out.append(
            (f"block{size}", changed if same_shape else source + f"\n// unchanged launch, variant {size}\n")
        )
    out.append(("duplicate", source + "\n// the same kernel, compiled again\n"))
    if mix == "throughput":
        out.append(("syntax_error", source.replace(";", "", 1)))
    return out


def _source(task, target: str) -> str:
    return task.naive_source() if target == "cuda" else task.serial_source()


# Defences whose cost the benchmark measures, by name: (OS sandbox, fresh inputs for every timed call,
# serial baselines timed alone and kept). "bare" is the evaluator as it was before issue 20.
MODES = {
    "defended": (True, True, True),
    "bare": (False, False, False),
    "sandbox": (True, False, False),
    "fresh": (False, True, False),
    "baselines": (False, False, True),
}


def throughput(
    tasks,
    out: Path,
    reference_threads: int,
    target: str = "cuda",
    mode: str = "defended",
    serial_store: Path | None = None,
    mix: str = "throughput",
    lanes: str | None = None,
    copy_store: bool = False,
    stop_rule: str = "interval",
    copies: int = 1,
    batches: int = 1,
    secret: bytes | None = None,
    warmup: bool = False,
) -> dict:
    """One throughput run. `lanes`: None for the Evaluator in this process (as before the device
    pool), else a GPU list (cuda, as --gpus) or a CPU lane count (cpu) for the pool. With `batches`
    above 1 the same evaluator (or pool) then runs the mix again that many times in all, each time
    with texts of its own (compiled and judged anew), as a trainer's steps or a long benchmark would:
    the report's figures are the first batch's, with the process's close (what a one-batch run pays),
    and `batches` gives every batch's wall time; `steady_evals_per_minute_wall` is the later ones'
    rate (no process start, bench data and serial baselines kept, plans by measured seconds). With
    `warmup`, a batch of one candidate per task (naive.cu, a text of its own) runs first, unmeasured,
    and the figures are the next batch's alone: the steady state, in one batch."""
    sandbox, fresh, baselines = MODES[mode]
    items = [(task, code, target) for task in tasks for _, code in variants(_source(task, target), mix, copies)]
    labels = [(task.id, label) for task in tasks for label, _ in variants(_source(task, target), mix, copies)]
    with tempfile.TemporaryDirectory() as cache:
        config = EvalConfig(cache_dir=cache, reference_threads=reference_threads, sandbox=sandbox, secret=secret)
        config.timing_config.fresh_inputs = fresh
        config.timing_config.interval_stop = stop_rule == "interval"
        config.serial_cache = baselines
        if SETTLE_WIDTH is not None:
            config.timing_config.serial_settle_width = SETTLE_WIDTH
        config.timing_config.serial_settle_check |= SETTLE_CHECK
        config.timing_config.serial_settle_lanes_at_once |= SETTLE_AT_ONCE
        if serial_store is not None and copy_store:
            # A copy per run: every run starts from the same kept baselines, and none adds to the next's.
            copy = Path(cache) / "serial-baselines.sqlite"
            shutil.copyfile(serial_store, copy)
            config.serial_store = str(copy)
        elif serial_store is not None:
            config.serial_store = str(serial_store)  # kept baselines: reused where the store has them
        start = time.perf_counter()  # a pool's lane processes start inside the measured time
        if lanes is None:
            opened = Evaluator(config)
        elif target == "cuda":
            opened = open_evaluator(config, target, gpus=lanes)
        else:
            opened = open_evaluator(config, target, lanes=int(lanes))
        gpus_used = len(getattr(opened, "lanes", [None]))
        later: list[dict] = []
        warmup_s, warmup_records = None, []
        with opened as evaluator:
            if warmup:
                began = time.perf_counter()
                warm = evaluator.evaluate_many([(task, _source(task, target) + "\n// warm-up\n", target) for task in tasks])
                warmup_s = round(time.perf_counter() - began, 3)
                # What the warm-up's items cost the device loop: the first plan is made from them.
                warmup_records = [{"task": r.task_id, "status": r.status, "lane": (r.fingerprint or {}).get("lane"),
                                   "seconds": r.seconds} for r in warm]  # fmt: skip
            measured = time.perf_counter()
            results = evaluator.evaluate_many(items)
            first_s = time.perf_counter() - (measured if warmup else start)
            taken = [list(t) for t in getattr(evaluator, "taken", [])]  # task groups lanes took from each other
            pool_lanes = dict(getattr(evaluator, "lane_stats", {}))
            for b in range(1, batches):
                again = [(task, code + f"\n// batch {b + 1} of the run\n", t) for task, code, t in items]
                began, before = time.perf_counter(), len(getattr(evaluator, "taken", []))
                done = evaluator.evaluate_many(again)
                later.append(batch_summary(done, time.perf_counter() - began, evaluator, before))
            closing = time.perf_counter()
        # One batch: from the start to the close. Several: the first batch and the close (what a run
        # of one batch would have taken); the later batches are reported on their own.
        # With a warm-up: the measured batch alone (the process was started and warmed before it).
        if warmup:
            wall = first_s
        else:
            wall = time.perf_counter() - start if not later else first_s + time.perf_counter() - closing
    state = (
        "warm process (a warm-up batch of one candidate per task first: bench data built, the baselines' "
        "compiles cached, plans by measured seconds; the candidates' own compiles cold); "
        if warmup
        else "cold compile cache; "
    ) + "serial baselines " + (
        f"from a copy of {serial_store} made before the runs (kept ones reused, none added)"
        if serial_store is not None and copy_store
        else f"from {serial_store} (reused where kept, added to)"
        if serial_store is not None
        else "from a fresh store (timed in the batch, settled at its end, pinned one per core or alone)"
    )
    # The device is held from a worker's job hand-off to its exit; a spare's start-up overlaps the
    # previous worker, so it is reported beside that figure rather than in it.
    worker_s = sum(r.seconds.get("worker", 0.0) for r in results)
    ahead_s = sum(r.seconds.get("cuda_context_ahead", 0.0) for r in results)
    statuses: dict[str, int] = {}
    for r in results:
        statuses[r.status] = statuses.get(r.status, 0) + 1
    rows = [
        {
            "task": t,
            "variant": v,
            "status": r.status,
            "message": r.message[:160],
            "median_ms": r.timings.get("candidate", {}).get("median_s", 0) * 1e3,
            "speedup_vs_naive": r.speedups.get("naive", {}).get("value"),
            "paired_vs_naive": r.speedups.get("naive", {}).get("paired"),
            "timed_calls": {lib: t.get("n") for lib, t in r.timings.items()},
            "serial_ms": r.timings.get("serial", {}).get("median_s", 0) * 1e3,
            "fresh_inputs": r.timings.get("candidate", {}).get("fresh_inputs"),
            "serial_source": r.timings.get("serial", {}).get("source"),
            # Why a pinned settle timing was replaced by one alone (session 14's call C lost this).
            "serial_pinned_rejected": r.timings.get("serial", {}).get("pinned_rejected"),
            "serial_concurrent": r.timings.get("serial", {}).get("concurrent"),
            "rounds": r.timings.get("candidate", {}).get("rounds"),
            "stop": r.timings.get("candidate", {}).get("stop"),
            "seconds": r.seconds,
        }
        for (t, v), r in zip(labels, results)
    ]
    for row, r in zip(rows, results):
        row["lane"] = r.fingerprint.get("lane")
        row["gpu_index"] = r.fingerprint.get("gpu_index")
    tag = f"{target}_{reference_threads}_{mode}" + (f"_{mix}" if mix != "throughput" else "")
    tag += "_rse" if stop_rule != "interval" else ""
    tag += f"_x{copies}" if copies > 1 else ""
    tag += f"_lanes{lanes.replace(',', '-')}" if lanes is not None else ""
    path, repeat = out / f"throughput_rows_{tag}.json", 1
    while path.exists():  # a list given twice in one call: one file per run
        repeat += 1
        path = out / f"throughput_rows_{tag}_run{repeat}.json"
    path.write_text(json.dumps(rows, indent=1))
    builds = {r.task_id: r.seconds["bench_build"] for r in results if "bench_build" in r.seconds}
    # The batch's end settles the serial baselines no store kept (every lane's device idle). Since
    # session 14 its tasks are timed at once, one per physical core (eval/settle.py), and lanes on
    # cores of their own settle at once: the settle's wall time is the union of the settles' spans;
    # the per-task seconds summed say what one after another would have cost.
    settle_s = settle_wall(results)
    settle_task_s = sum({r.task_id: r.seconds["serial_settle"] for r in results if "serial_settle" in r.seconds}.values())
    pinned = {r.task_id: r.timings["serial"] for r in results if "settle_span" in r.timings.get("serial", {})}
    before_settle = max(1e-9, wall - settle_s)
    return {
        "target": target,
        "reference_threads": reference_threads,
        "mode": mode,
        "mix": mix,
        "stop_rule": stop_rule,
        "lanes": lanes,
        "lane_names": sorted({str(r.fingerprint.get("lane")) for r in results if r.fingerprint.get("lane")}),
        "sandbox": sandbox,
        "fresh_inputs": fresh,
        "serial_baselines": baselines,
        "sandbox_s": sum(r.seconds.get("sandbox", 0.0) for r in results),
        "bench_build_s": sum(builds.values()),
        "candidates": len(items),
        "tasks": len(tasks),
        "wall_s": wall,
        "worker_s": worker_s,
        "spare_startup_s": ahead_s,
        "copies": copies,
        "evals_per_minute_wall": 60 * len(items) / wall,
        "settle_s": round(settle_s, 3),
        "settle_task_s": round(settle_task_s, 3),
        "settled_tasks": len(pinned),
        "settled_pinned": sum(1 for t in pinned.values() if t.get("concurrent") and not t.get("pinned_rejected")),
        "settled_rejected": sorted(k for k, t in pinned.items() if t.get("pinned_rejected")),
        "settled_rejected_why": {k: t["pinned_rejected"] for k, t in sorted(pinned.items()) if t.get("pinned_rejected")},
        # Per settled task, the baseline it ended with: runs of one host compare them (alone vs pinned).
        "settled": {
            k: {
                "median_ms": round(t.get("median_s", 0.0) * 1e3, 4),
                "rel_median_error": t.get("rel_median_error"),
                "concurrent": t.get("concurrent"),
                "timings": t.get("timings"),
                "samples": t.get("samples"),
                "lane": next((r.fingerprint.get("lane") for r in results if r.task_id == k), None),
                "settle_s": next((r.seconds.get("serial_settle") for r in results if r.task_id == k and "serial_settle" in r.seconds), None),
            }
            for k, t in sorted(pinned.items())
        },
        "evals_per_minute_wall_before_settle": 60 * len(items) / before_settle,
        "evals_per_gpu_minute": 60 * len(items) / worker_s if worker_s else None,
        # The wall time of every GPU the run held: what a multi-GPU run is charged for its GPUs.
        "gpus": gpus_used,
        "evals_per_gpu_minute_wall": 60 * len(items) / wall / max(1, gpus_used),
        "phases": phase_breakdown(results),
        "loop": loop_breakdown(results),
        "lanes_report": lane_report(results, wall, pool_lanes),
        "groups_taken": taken,
        # Each lane's calls and settle, in seconds from the pool batch's start (eval/spread.py).
        "lane_timeline": pool_lanes.get("timeline", []),
        "lane_began_wall": pool_lanes.get("began_wall"),  # the timeline's zero on the wall clock (--trace)
        # Which inputs the run drew: runs with the same key drew the same ones (--secret).
        "inputs_key": hashlib.sha256(secret).hexdigest()[:12] if secret else "fresh secret",
        "warmup_s": warmup_s,  # the unmeasured warm-up batch (--warmup), else None
        "warmup_records": warmup_records,
        "batches": [{"wall_s": round(first_s, 3), "evals_per_minute_wall": round(60 * len(items) / first_s, 2),
                     "first": True}] + later,  # fmt: skip
        "steady_evals_per_minute_wall": (
            round(60 * len(items) * len(later) / sum(b["wall_s"] for b in later), 2) if later else None
        ),
        "state": state,
        "statuses": statuses,
        "serial_sources": sorted({row["serial_source"] for row in rows if row["serial_source"]}),
    }


# Where a candidate's worker holds its GPU, in the order it goes through them. "staging" is the
# worker's part of the record's bench_setup; bench_wait and judge_stage are the parent's (the worker
# waits on them with its CUDA context open); "other" is the rest of the worker's time (process start
# before its first message, messages in flight, the parent's answers to correctness cases);
# context_wait is a job handed to a spare whose CUDA context was still coming up; inputs_copy is the
# worker copying its bench inputs from the parent's device masters, before the candidate loads (where
# it did not, "staging" holds their upload from files).
HELD_PHASES = ("startup", "context_wait", "cuda_context", "inputs_copy", "sandbox", "correctness", "bench_wait", "judge_stage", "staging", "timing", "exit", "other")


def held_phases(seconds: dict) -> dict[str, float]:
    """One record's GPU-held seconds (its worker's, from job hand-off to exit) split by phase."""
    worker = seconds.get("worker", 0.0)
    if not worker:
        return {}
    out = {k: seconds.get(k, 0.0) for k in ("context_wait", "cuda_context", "inputs_copy", "sandbox", "correctness", "bench_wait", "judge_stage", "timing", "exit")}
    out["inputs_copy"] += seconds.get("inputs_copy_failed", 0.0)
    out["startup"] = max(0.0, seconds.get("startup", 0.0) - out["cuda_context"])  # hello's stamp includes the context
    out["staging"] = max(0.0, seconds.get("bench_setup", 0.0) - out["bench_wait"] - out["judge_stage"])
    out["other"] = max(0.0, worker - sum(out.values()))
    return {k: out[k] for k in HELD_PHASES}


# --serial-settle-width, where given: TimingConfig.serial_settle_width of every throughput run.
SETTLE_WIDTH: int | None = None
SETTLE_CHECK = False  # --serial-settle-check
SETTLE_AT_ONCE = False  # --serial-settle-at-once


def settle_wall(results) -> float:
    """Seconds during which any batch-end settle ran: the union of the records' settle spans."""
    spans = sorted(
        {(s["began"], s["ended"]) for r in results if (s := r.timings.get("serial", {}).get("settle_span"))}
    )
    total, reach = 0.0, float("-inf")
    for began, ended in spans:
        if ended > reach:
            total += ended - max(began, reach)
            reach = ended
    return total


def phase_breakdown(results: list) -> dict:
    """Mean GPU-held seconds per candidate that ran a worker, by phase (and their sum); beside them,
    what is not held: the spares' contexts made ahead, bench builds and serial settles (per task)."""
    split = [held_phases(r.seconds) for r in results]
    split = [x for x in split if x]
    n = len(split) or 1
    mean = {k: round(sum(x[k] for x in split) / n, 4) for k in HELD_PHASES}
    mean["held"] = round(sum(mean.values()), 4)
    return {
        "workers": len(split),
        "held_per_candidate_s": mean,
        "context_ahead_s": round(sum(r.seconds.get("cuda_context_ahead", 0.0) for r in results), 3),
        "judge_ahead_s": round(sum(r.seconds.get("judge_stage_ahead", 0.0) for r in results), 3),
        # The parent's device masters of the bench inputs, checked (and uploaded, once per task)
        # before each worker starts: device time outside any worker's, summed over the run.
        "inputs_offer_ahead_s": round(sum(r.seconds.get("inputs_offer_ahead", 0.0) for r in results), 3),
        "compile_errors_without_worker": sum(1 for r in results if not r.seconds.get("worker")),
    }


# The timing phase split by the worker's loop (protocol.LoopReport), in the order of one call.
LOOP_PARTS = ("stage", "sync", "hold", "call", "checks", "report", "rule", "rest")


def loop_breakdown(results: list) -> dict:
    """How the candidates' timing loops went: why each stopped (eval/stop_rule.py; "final" where the
    record names no rule), rounds per candidate, and the loop's seconds per round and per candidate
    by part: the harness's host work around the calls against the timed calls themselves."""
    timed = [r for r in results if r.seconds.get("timing") and r.timings.get("candidate", {}).get("rounds")]
    n = len(timed) or 1
    rounds = sum(r.timings["candidate"]["rounds"] for r in timed)
    stops: dict[str, int] = {}
    for r in timed:
        reason = r.timings["candidate"].get("stop") or "final"
        stops[reason] = stops.get(reason, 0) + 1
    per_candidate = {p: sum(r.seconds.get(f"timing_{p}", 0.0) for r in timed) / n for p in LOOP_PARTS}
    by_task: dict[str, dict] = {}
    for r in timed:
        t = by_task.setdefault(r.task_id, {"candidates": 0, "timing_s": 0.0, "rounds": 0, "stops": []})
        t["candidates"] += 1
        t["timing_s"] += r.seconds["timing"]
        t["rounds"] += r.timings["candidate"]["rounds"]
        t["stops"].append(r.timings["candidate"].get("stop") or "final")
    return {
        "by_task": by_task,
        "candidates": len(timed),
        "stops": stops,
        "rounds_per_candidate": rounds / n,
        "warmup_per_candidate": sum(r.timings["candidate"].get("warmup_rounds") or 0 for r in timed) / n,
        "timing_s_per_candidate": sum(r.seconds["timing"] for r in timed) / n,
        "per_candidate_s": {p: round(v, 4) for p, v in per_candidate.items()},
        "per_round_ms": {p: round(v * n / max(rounds, 1) * 1e3, 4) for p, v in per_candidate.items()},
    }


def format_loop(b: dict) -> str:
    if not b["candidates"]:
        return "timing loop: no candidate reported its rounds"
    parts = ", ".join(f"{p} {b['per_round_ms'][p]:.3f}" for p in LOOP_PARTS)
    tasks = "; ".join(
        f"{task} {t['timing_s'] / t['candidates']:.2f} s {t['rounds'] / t['candidates']:.0f} rounds "
        f"({'/'.join(t['stops'])})"
        for task, t in b["by_task"].items()
    )
    return (
        f"timing loop ({b['candidates']} timed): {b['timing_s_per_candidate']:.3f} s per candidate, "
        f"{b['rounds_per_candidate']:.1f} rounds ({b['warmup_per_candidate']:.1f} warm-up); stopped by "
        f"{', '.join(f'{k} {v}' for k, v in sorted(b['stops'].items()))}; ms per round: {parts}\n  "
        f"per task (mean timing, rounds, stops): {tasks}"
    )


def lane_report(results: list, wall: float, pool_lanes: dict) -> dict:
    """Per lane (\"in process\" for the Evaluator here): its candidates, the seconds its workers held
    its GPU, and what it waited on without holding it: compiles not done (compile_wait, the device
    idle), its task's bench data (bench_wait, held), the parent's answers to its workers' messages
    (parent_reply, held; bench_wait and judge_stage among them); then the pool's own counters
    (calls, busy_s in calls, settle_s at the batch's end, idle_s with nothing to run)."""
    lanes: dict[str, dict] = {}
    for r in results:
        lane = lanes.setdefault(str(r.fingerprint.get("lane") or "in process"), {
            "candidates": 0, "workers": 0, "worker_s": 0.0, "compile_wait_s": 0.0, "bench_wait_s": 0.0,
            "parent_reply_s": 0.0})
        lane["candidates"] += 1
        lane["workers"] += 1 if r.seconds.get("worker") else 0
        for key, field in (("worker_s", "worker"), ("compile_wait_s", "compile_wait"),
                           ("bench_wait_s", "bench_wait"), ("parent_reply_s", "parent_reply")):
            lane[key] += r.seconds.get(field, 0.0)
    for name, lane in lanes.items():
        for key in ("worker_s", "compile_wait_s", "bench_wait_s", "parent_reply_s"):
            lane[key] = round(lane[key], 3)
        lane["gpu_idle_s"] = round(max(0.0, wall - lane["worker_s"]), 3)  # no worker of its own running
        lane.update(pool_lanes.get("lanes", {}).get(name, {}))
    return lanes


def format_lanes(report: dict) -> str:
    return "; ".join(
        f"{name}: {lane['candidates']} candidates, workers {lane['worker_s']:.1f} s, GPU idle {lane['gpu_idle_s']:.1f} s, "
        f"compile wait {lane['compile_wait_s']:.1f} s, bench wait {lane['bench_wait_s']:.1f} s, "
        f"parent replies {lane['parent_reply_s']:.1f} s"
        + (f", calls {lane['calls']}, in calls {lane['busy_s']:.1f} s, settling {lane['settle_s']:.1f} s, "
           f"nothing to run {lane['idle_s']:.1f} s" if "calls" in lane else "")
        for name, lane in report.items()
    )


def format_breakdown(b: dict) -> str:
    held = b["held_per_candidate_s"]
    parts = ", ".join(f"{k} {held[k]:.3f}" for k in HELD_PHASES if held[k] >= 0.0005)
    return (
        f"GPU held per candidate ({b['workers']} workers): {held['held']:.3f} s = {parts}; "
        f"spare contexts made ahead {b['context_ahead_s']:.1f} s, expected outputs staged to the parent's "
        f"judge before workers started {b.get('judge_ahead_s', 0.0):.1f} s, bench inputs' device masters "
        f"checked or uploaded before workers started {b.get('inputs_offer_ahead_s', 0.0):.1f} s, in all (not held)"
    )


def scaling(runs: list[dict]) -> list[str]:
    """Each pool's evaluations per wall minute (the mean of its runs, where a list is given more than
    once: `--gpus 0 0,1 0 0,1` interleaves them) against the first pool's, per mix, mode and
    bench-data threads."""
    groups: dict[tuple, dict[str, list[dict]]] = {}
    for t in runs:
        if t["lanes"] is not None:
            key = (t["mix"], t["mode"], t["reference_threads"], t.get("stop_rule", "interval"), t.get("copies", 1))
            groups.setdefault(key, {}).setdefault(t["lanes"], []).append(t)
    lines = []
    for (mix, mode, threads, rule, copies), pools in groups.items():
        rates = {lanes: [t["evals_per_minute_wall"] for t in ts] for lanes, ts in pools.items()}
        base_lanes = next(iter(rates))
        base = sum(rates[base_lanes]) / len(rates[base_lanes])
        unsettled = {lanes: sum(t["evals_per_minute_wall_before_settle"] for t in ts) / len(ts) for lanes, ts in pools.items()}
        for lanes, ts in pools.items():
            mean = sum(rates[lanes]) / len(rates[lanes])
            names = ", ".join(ts[0]["lane_names"]) or "in process"
            per_gpu = sum(t["evals_per_gpu_minute_wall"] for t in ts) / len(ts)
            held = sum(t["phases"]["held_per_candidate_s"]["held"] for t in ts) / len(ts)
            lines.append(
                f"{mix} mix x{copies}, {mode}, {rule} stop, {threads} bench-data threads, lanes {lanes} ({names}): "
                f"{mean:.1f} evaluations per wall minute (runs: {', '.join(f'{r:.1f}' for r in rates[lanes])}) "
                f"= {mean / base:.2f}x lanes {base_lanes}; before the batch-end serial settle "
                f"{unsettled[lanes]:.1f} = {unsettled[lanes] / unsettled[base_lanes]:.2f}x; {per_gpu:.1f} per GPU-minute of wall time; "
                f"GPU held {held:.3f} s per candidate; task groups taken by idle lanes "
                f"{', '.join(str(len(t['groups_taken'])) for t in ts)}; statuses {ts[0]['statuses']}"
            )
    return lines


def repeatability(task, source: str, runs: int, holds_us: list[float]) -> list[dict]:
    series = {
        hold: {"medians": [], "speedups": [], "paired": [], "samples": [], "iqrs": [], "stops": []} for hold in holds_us
    }
    for _ in range(runs):
        for hold in holds_us:
            config = EvalConfig()
            config.timing_config.hold_s = hold * 1e-6
            with Evaluator(config) as evaluator:
                result = evaluator.evaluate(task, source, "cuda")
            assert result.status == "correct", result.message
            s, t = series[hold], result.timings["candidate"]
            s["medians"].append(t["median_s"])
            s["samples"].append(t["n"])
            s["iqrs"].append(t["iqr_s"] / t["median_s"])
            s["speedups"].append(result.speedups["naive"]["value"])
            s["paired"].append(result.speedups["naive"].get("paired"))
            s["stops"].append(t.get("stop"))
    return [
        {
            "task": task.id,
            "hold_us": hold,
            "runs": runs,
            "medians_ms": [m * 1e3 for m in s["medians"]],
            "samples": s["samples"],
            "relative_iqr": s["iqrs"],
            "spread": max(s["medians"]) / min(s["medians"]) - 1,
            "speedup_vs_naive": s["speedups"],
            "speedup_spread": max(s["speedups"]) / min(s["speedups"]) - 1,
            # the same speedup from the rounds' paired ratios (stats.paired_ratio), and each timing's stop
            "paired_vs_naive": s["paired"],
            "paired_spread": max(s["paired"]) / min(s["paired"]) - 1 if all(s["paired"]) else None,
            "stops": s["stops"],
        }
        for hold, s in series.items()
    ]


def batch_summary(results, wall: float, evaluator, taken_before: int) -> dict:
    """A later batch of a run: its wall time and rate, statuses, settle, the groups lanes took from
    each other, and its lanes' timeline."""
    statuses: dict[str, int] = {}
    for r in results:
        statuses[r.status] = statuses.get(r.status, 0) + 1
    lanes = dict(getattr(evaluator, "lane_stats", {}))
    return {
        "wall_s": round(wall, 3),
        "evals_per_minute_wall": round(60 * len(results) / wall, 2),
        "statuses": statuses,
        "worker_s": round(sum(r.seconds.get("worker", 0.0) for r in results), 3),
        "device_loop_s": round(sum(r.seconds.get("device_loop", 0.0) for r in results), 3),
        "settle_s": round(settle_wall(results), 3),
        "groups_taken": [list(t) for t in getattr(evaluator, "taken", [])][taken_before:],
        "lane_timeline": lanes.get("timeline", []),
        "lane_began_wall": lanes.get("began_wall"),
    }


def baselines_first(tasks, out: Path, target: str, threads: int) -> tuple[Path, list[dict]]:
    """Time every task's serial baseline once, before the runs, into a store of its own (as
    `regrapht tasks check` would): each bench build times its baseline alone and keeps it where it
    is good enough. Not part of any run's time; the runs then start from copies of that store."""
    store = out / "serial-baselines-first.sqlite"
    store.unlink(missing_ok=True)
    rows = []
    with tempfile.TemporaryDirectory() as cache:
        config = EvalConfig(cache_dir=cache, reference_threads=threads, serial_store=str(store))
        with Evaluator(config) as evaluator:
            evaluator.prefetch(list(tasks), threads)
            for task in tasks:
                began = time.perf_counter()
                serial = evaluator.bench_reference(task).serial
                evaluator.release(task)
                rows.append({"task": task.id, "waited_s": round(time.perf_counter() - began, 2),
                             "kept": not serial.get("not_kept"), "why_not": serial.get("not_kept")})
    return store, rows


def _print_gpu_throughput(gpu: str, report: dict) -> None:
    for t in report.get("throughput", []):
        print(
            f"\n{gpu}, {t['mix']} mix, GPUs {t['lanes'] or 'first (in process)'}, {t['reference_threads']} bench-data threads, {t['mode']}, {t['stop_rule']} stop (sandbox "
            f"{'on' if t['sandbox'] else 'off'}, fresh inputs {'on' if t['fresh_inputs'] else 'off'}): "
            f"{t['candidates']} candidates over "
            f"{t['tasks']} tasks in {t['wall_s']:.1f} s wall = {t['evals_per_minute_wall']:.1f} evaluations/min "
            f"({t['state']}; isolation on); workers held the GPU {t['worker_s']:.1f} s = "
            f"{t['evals_per_gpu_minute']:.1f} evaluations per GPU-minute of workers' time; "
            f"{t['evals_per_gpu_minute_wall']:.1f} per GPU-minute of wall time ({t['gpus']} GPU(s))\n  "
            + format_breakdown(t["phases"])
            + "\n  "
            + format_loop(t["loop"])
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("."))
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument(
        "--holds",
        type=float,
        nargs="+",
        default=[EvalConfig().timing_config.hold_s * 1e6],
        help="Hold lengths in microseconds, one repeatability series each (default: the configured one).",
    )
    parser.add_argument("--skip-throughput", action="store_true", help="Measure repeatability only.")
    parser.add_argument("--skip-repeatability", action="store_true", help="Measure throughput only.")
    parser.add_argument(
        "--reference-threads",
        type=int,
        nargs="+",
        default=[EvalConfig().reference_threads],
        help="Bench-data threads, one throughput run each (default: the configured number).",
    )
    parser.add_argument(
        "--tasks", nargs="*", default=FIXED_TASKS, help="Task ids (default: a fixed set of 10)."
    )
    parser.add_argument("--target", choices=["cuda", "cpu"], default="cuda")
    parser.add_argument(
        "--modes",
        nargs="+",
        choices=sorted(MODES),
        default=["defended"],
        help="One throughput run each: defended (OS sandbox, fresh inputs, serial baselines timed alone and "
        "kept: the default), bare (none of them: what they cost, side by side in one call), or one of them "
        "alone (sandbox, fresh, baselines).",
    )
    parser.add_argument(
        "--serial-store",
        type=Path,
        default=None,
        help="A store of serial baselines to use and fill (default: a fresh one in the cold compile "
        "cache, so every baseline is timed beside the batch and settled at its end). Run twice "
        "with the same path to measure a batch whose baselines are kept.",
    )
    parser.add_argument(
        "--baselines-first",
        action="store_true",
        help="Before the runs, time every task's serial baseline alone into a store of its own; each run "
        "then starts from a copy of it (the state of a machine whose baselines are kept), instead of a "
        "fresh store. The compile cache stays cold in every run.",
    )
    parser.add_argument(
        "--mixes",
        nargs="+",
        choices=MIXES,
        default=["throughput"],
        help="Candidate mixes, one throughput run each: throughput (five per task, one a syntax error) and "
        "clean (the same without the syntax error).",
    )
    parser.add_argument(
        "--stop-rules",
        nargs="+",
        choices=STOP_RULES,
        default=["interval"],
        help="Timing stop rules, one throughput run each: interval (the candidate's median and paired ratios, "
        "eval/stop_rule.py, beside the mean's RSE: the default) or rse (every kernel's mean RSE alone, as "
        "before session 13), so their timing phases compare side by side.",
    )
    parser.add_argument(
        "--gpus",
        nargs="+",
        default=None,
        help="cuda: GPU lists, one throughput run each through the device pool, side by side (e.g. 0 0,1: "
        "one GPU, then two). Default: the Evaluator in this process, on the first GPU.",
    )
    parser.add_argument(
        "--cpu-lanes",
        nargs="+",
        default=None,
        help="cpu: CPU lane counts, one throughput run each through the device pool (e.g. 1 2).",
    )
    parser.add_argument(
        "--copies",
        type=int,
        default=1,
        help="The mix this many times per task, each copy compiled and judged anew (default 1: 50 candidates "
        "over the 10 tasks). More copies weigh start-up and per-task costs less in a scaling ratio.",
    )
    parser.add_argument(
        "--serial-settle-width",
        type=int,
        default=None,
        help="Serial baselines a batch's end times at once per lane, one per physical core (default: the "
        "evaluator's, 0 = one per physical core; 1 = one after another); lanes settle one after another "
        "unless --serial-settle-at-once.",
    )
    parser.add_argument(
        "--serial-settle-at-once",
        action="store_true",
        help="Lanes settle their serial baselines at the same time, pinned, through shared slots "
        "(TimingConfig.serial_settle_lanes_at_once; off by default: biased on an H100 host, session 15).",
    )
    parser.add_argument(
        "--serial-settle-check",
        action="store_true",
        help="Check each pinned serial timing against a short one alone (TimingConfig.serial_settle_check).",
    )
    parser.add_argument(
        "--warmup",
        action="store_true",
        help="Before the measured batch, an unmeasured one of one candidate per task (bench data built, "
        "baselines' compiles cached, serial baselines settled, plans by measured seconds): the figures are "
        "then the steady state's, as a trainer's later steps see it.",
    )
    parser.add_argument(
        "--secret",
        default=None,
        help="The runs' secret, in hex (default: a fresh one per run). Runs compared with each other need the "
        "same one: it draws the inputs, and some tasks' kernels take as long as their draw makes them (spmv_csr's "
        "longest power-law row is 60k to 1M nonzeros, its naive kernel 3 to 29 ms; session 16).",
    )
    parser.add_argument(
        "--batches",
        type=int,
        default=1,
        help="Run the mix this many times through the same evaluator or pool, each batch with texts of its own "
        "(default 1). The report's figures stay the first batch's; later batches give the steady rate "
        "(steady_evals_per_minute_wall): what a trainer's later steps or a long benchmark get.",
    )
    parser.add_argument(
        "--trace",
        action="store_true",
        help="Write each run's spans (compiles, bench builds, items, waits, serial timings; eval/trace.py) to "
        "OUT/trace_*; benchmarks/trace_report.py says where the wall time went.",
    )
    args = parser.parse_args()
    # The settle's progress, task by task, so a run cut by its limit still says where its time went.
    os.environ["REGRAPHT_LOG_SETTLE"] = "1"  # lanes in processes of their own log theirs (eval/settle.py)
    settle_log = logging.getLogger("regrapht.eval.settle")
    settle_log.setLevel(logging.INFO)
    if not settle_log.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(asctime)s %(process)d %(message)s"))
        settle_log.addHandler(handler)
    if args.copies < 1:
        parser.error("--copies must be at least 1")
    if args.batches < 1:
        parser.error("--batches must be at least 1")
    try:
        secret = bytes.fromhex(args.secret) if args.secret else None
    except ValueError:
        parser.error(f"--secret must be hexadecimal, got {args.secret!r}")
    if secret is not None and len(secret) < 16:
        parser.error("--secret needs at least 16 bytes (32 hex digits): it keys every input draw")
    if args.serial_settle_width is not None and args.serial_settle_width < 0:
        parser.error("--serial-settle-width must be 0 (one per physical core) or more")
    global SETTLE_WIDTH, SETTLE_CHECK, SETTLE_AT_ONCE
    SETTLE_WIDTH, SETTLE_CHECK = args.serial_settle_width, args.serial_settle_check
    SETTLE_AT_ONCE = args.serial_settle_at_once
    if args.gpus and args.target != "cuda":
        parser.error("--gpus is for --target cuda; on the cpu target give --cpu-lanes")
    if args.cpu_lanes and args.target != "cpu":
        parser.error("--cpu-lanes is for --target cpu")
    pools = args.gpus or args.cpu_lanes or [None]
    args.out.mkdir(parents=True, exist_ok=True)
    tasks = [find_task(task_id) for task_id in args.tasks]
    gpu = toolchain.gpus()[0].name if toolchain.gpus() else "no GPU"
    report: dict = {"gpu": gpu, "cpu": toolchain.cpu_model(), "date": time.strftime("%Y-%m-%d")}
    serial_store, copy_store = args.serial_store, False
    if args.baselines_first and not args.skip_throughput:
        began = time.perf_counter()
        serial_store, rows = baselines_first(tasks, args.out, args.target, max(args.reference_threads))
        copy_store = True
        report["baselines_first"] = {"seconds": round(time.perf_counter() - began, 1), "tasks": rows}
        print(f"serial baselines timed first in {report['baselines_first']['seconds']} s: "
              f"{sum(r['kept'] for r in rows)} of {len(rows)} kept", flush=True)
    if not args.skip_throughput:
        report["throughput"] = []
        for mix in args.mixes:
            for n in args.reference_threads:
                for mode, rule in [(m, r) for m in args.modes for r in args.stop_rules]:
                    for lanes in pools:
                        if args.trace:  # a folder per run: its lanes, started below, inherit the variable
                            label = "inprocess" if lanes is None else str(lanes).replace(",", "-")
                            folder, repeat = args.out / f"trace_{mix}_{mode}_{rule}_{n}_{label}", 1
                            while folder.exists():  # a list given twice: a folder per run, as the rows
                                repeat += 1
                                folder = args.out / f"trace_{mix}_{mode}_{rule}_{n}_{label}_run{repeat}"
                            os.environ[trace.ENV] = str(folder)
                        report["throughput"].append(
                            throughput(
                                tasks, args.out, n, args.target, mode, serial_store, mix, lanes, copy_store, rule,
                                args.copies, args.batches, secret, args.warmup,
                            )
                        )
                        # What is done survives a time limit that stops a later run.
                        (args.out / "eval_throughput.json").write_text(json.dumps(report, indent=1))
                        t = report["throughput"][-1]
                        print(f"measured: {t['mix']} mix, {t['mode']}, {t['stop_rule']} stop, lanes {t['lanes'] or 'in process'}: "
                              f"{t['candidates']} candidates in {t['wall_s']:.1f} s = {t['evals_per_minute_wall']:.1f} "
                              f"evaluations per wall minute ({t['evals_per_minute_wall_before_settle']:.1f} before the batch-end "
                              f"serial settle of {t['settle_s']:.1f} s: {t['settled_tasks']} tasks, {t['settled_pinned']} kept "
                              f"pinned at once, re-timed alone {t['settled_rejected']}, {t['settle_task_s']:.1f} s summed "
                              f"per task); statuses {t['statuses']}; {t['state']}\n"
                              f"  lanes: {format_lanes(t['lanes_report'])}", flush=True)
                        if t["steady_evals_per_minute_wall"] is not None:
                            print("  batches: " + ", ".join(f"{b['wall_s']:.1f} s" for b in t["batches"])
                                  + f"; steady (batches 2 on): {t['steady_evals_per_minute_wall']:.1f} evaluations per wall minute",
                                  flush=True)  # fmt: skip
        os.environ.pop(trace.ENV, None)  # the runs are traced, not what follows them
        print(json.dumps(report["throughput"], indent=1), flush=True)
        for line in scaling(report["throughput"]):
            print(line)
    if args.target == "cpu":
        (args.out / "eval_throughput.json").write_text(json.dumps(report, indent=1))
        for t in report.get("throughput", []):
            print(
                f"cpu target, {t['mode']}, {t['stop_rule']} stop, {t['mix']} mix, lanes {t['lanes'] or 'in process'}: {t['candidates']} candidates over {t['tasks']} tasks in "
                f"{t['wall_s']:.1f} s wall; workers {t['worker_s']:.1f} s = "
                f"{t['evals_per_gpu_minute']:.1f} evaluations per worker-minute; bench builds {t['bench_build_s']:.1f} s\n  "
                + format_breakdown(t["phases"])
                + "\n  "
                + format_loop(t["loop"])
            )
        return
    if args.skip_repeatability:
        report["repeatability"] = []
        (args.out / "eval_throughput.json").write_text(json.dumps(report, indent=1))
        _print_gpu_throughput(gpu, report)
        return
    saxpy = find_task("saxpy")
    report["repeatability"] = repeatability(
        saxpy, (saxpy.root / "candidates" / "correct.cu").read_text(), args.runs, args.holds
    )
    print(json.dumps(report["repeatability"], indent=1))
    (args.out / "eval_throughput.json").write_text(json.dumps(report, indent=1))
    _print_gpu_throughput(gpu, report)
    for r in report["repeatability"]:
        print(
            f"repeatability of {r['task']} median over {r['runs']} evaluations, hold {r['hold_us']:g} us: "
            f"spread {r['spread'] * 100:.2f}% (speedup over naive: {r['speedup_spread'] * 100:.2f}%; from paired "
            f"rounds: {(r['paired_spread'] or 0) * 100:.2f}%); stops {r['stops']}"
        )


if __name__ == "__main__":
    main()
