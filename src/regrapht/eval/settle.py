"""A batch's end: its tasks' serial baselines timed at once, each on a physical core of its own.

With a cold baseline store, a batch ends by timing every task's serial reference (single-threaded
C++) with nothing else of the evaluator running. One task after another, that took 6-7 s per task
(session 13: 72 s of a 188 s one-GPU batch, 63 s of a 125 s two-GPU one), a cost no second GPU
shares. The lanes are idle then, and a serial reference uses one core: so the settle times up to
one task per physical core at once, each process pinned to its core (never two on SMT siblings),
and the settle costs about one task's timing per wave of cores instead of one per task. A host of
two GPUs has twice the cores of one, so its settle shrinks with its lanes.

A timing beside others may still be disturbed where they share more than a core (the memory bus,
the last-level cache). So a pinned timing stands only where it passes the spread rule on its own:
begun with nothing else on its physical core (`TimingConfig.serial_max_background`, counted on that
core only), its median known to `serial_max_median_error` (no pooling across runs lets a noisy
pinned timing through). Any other task is timed again alone, as before, and its record says why.
`benchmarks/serial_spread.py --pinned` measures, per task, how far pinned medians sit from alone
ones on a host: the check the spread rule cannot make.

Records say what happened: `timings.serial.concurrent` (other timings that ran beside it; 0 alone),
and `pinned_rejected` where a pinned timing was replaced by one alone.
"""

from __future__ import annotations

import queue
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Protocol

from regrapht.eval.oracle import ReferenceError
from regrapht.eval.reference import BenchReference
from regrapht.eval.serial_baselines import KEEP_MIN_SAMPLES, SerialBaseline
from regrapht.tasks import Task


class Settler(Protocol):
    """What the settle needs of the oracle (`eval/oracle.Oracle`)."""

    def settle(self, task: Task, bench: BenchReference) -> bool: ...

    def time_pinned(self, task: Task, bench: BenchReference, cpu: int, beside: int) -> SerialBaseline: ...

    def keep_settled(self, task: Task, bench: BenchReference, baseline: SerialBaseline) -> None: ...


def pinned_problem(baseline: SerialBaseline, max_median_error: float, max_background: float) -> str | None:
    """Why a pinned timing must be replaced by one alone, or None: the alone rule, without the
    pooled-runs exception."""
    if not baseline.samples:
        return "no samples"
    disturbed = baseline.disturbed(max_background)
    if disturbed is not None:
        return disturbed + " (on its own physical core)"
    if len(baseline.samples) < KEEP_MIN_SAMPLES:
        return f"{len(baseline.samples)} sample(s), fewer than {KEEP_MIN_SAMPLES}"
    if baseline.rel_median_error > max_median_error:
        return (
            f"its median is known to {baseline.rel_median_error:.2%} only ({len(baseline.samples)} samples spread "
            f"by {baseline.rel_iqr:.1%}; at most {max_median_error:.1%})"
        )
    return None


def settle_tasks(
    items: Sequence[tuple[Task, BenchReference]],
    settler: Settler,
    cores: Sequence[int],
    max_median_error: float,
    max_background: float,
) -> list[tuple[bool, float]]:
    """Settle each task's serial baseline; per item, whether it was settled (False: its reference
    failed, the batch's timing stands) and the seconds its settle took (its pinned timing and any
    alone re-time). With fewer than two `cores` (one logical CPU per physical core) or tasks, one
    task after another, alone."""
    out: list[tuple[bool, float]] = [(False, 0.0)] * len(items)
    if len(cores) < 2 or len(items) < 2:
        for n, (task, bench) in enumerate(items):
            began = time.perf_counter()
            out[n] = (settler.settle(task, bench), time.perf_counter() - began)
        return out
    width = min(len(cores), len(items))
    free: queue.Queue[int] = queue.Queue()
    for cpu in cores[:width]:
        free.put(cpu)

    def pinned(n: int) -> tuple[SerialBaseline | None, float]:
        cpu = free.get()
        began = time.perf_counter()
        try:
            return settler.time_pinned(items[n][0], items[n][1], cpu, width - 1), time.perf_counter() - began
        except ReferenceError:
            return None, time.perf_counter() - began
        finally:
            free.put(cpu)

    with ThreadPoolExecutor(max_workers=width, thread_name_prefix="regrapht-settle") as threads:
        timed = list(threads.map(pinned, range(len(items))))
    alone: list[tuple[int, str]] = []
    for n, ((task, bench), (baseline, seconds)) in enumerate(zip(items, timed)):
        if baseline is None:
            out[n] = (False, seconds)
            continue
        problem = pinned_problem(baseline, max_median_error, max_background)
        if problem is None:
            settler.keep_settled(task, bench, baseline)
            out[n] = (True, seconds)
        else:
            alone.append((n, problem))
    # Once every pinned timing has ended: these are alone.
    for n, problem in alone:
        task, bench = items[n]
        began = time.perf_counter()
        ok = settler.settle(task, bench)
        if ok:
            bench.serial["pinned_rejected"] = problem
        out[n] = (ok, timed[n][1] + time.perf_counter() - began)
    return out
