"""Scheduling for the one-call comparison (benchmarks/tvk_compare.py), without torch or a GPU so the
CPU tests exercise it: the candidates' fixed stratified order, the seconds a set of overlapping
processes held the GPU, and a pool of child processes run a few at a time under a hard deadline."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

# Round-robin over these groups (class, then backend), so that every prefix of the order mixes
# correct, wrong, failing and cheating candidates of both backends.
GROUP_ORDER = (
    ("correct", "cuda"), ("cheat", "cuda"), ("correct", "triton"), ("wrong", "cuda"), ("cheat", "triton"),
    ("compile", "cuda"), ("wrong", "triton"), ("runtime", "cuda"), ("compile", "triton"), ("runtime", "triton"),
)


def stratified_order(cands: Sequence[Any]) -> list[Any]:
    """The candidates in a fixed order decided by expected.toml alone (never by a run): one of each
    (class, backend) group in turn, each group in its file order. `--subset N` takes the first N."""
    groups: dict[tuple[str, str], list[Any]] = {}
    for c in cands:
        groups.setdefault((c.klass, c.backend), []).append(c)
    order = [g for g in GROUP_ORDER if g in groups] + sorted(g for g in groups if g not in GROUP_ORDER)
    out: list[Any] = []
    while any(groups[g] for g in order):
        for g in order:
            if groups[g]:
                out.append(groups[g].pop(0))
    return out


def union_seconds(intervals: Sequence[tuple[float, float]]) -> float:
    """Seconds covered by at least one (start, end) interval: the time a harness whose processes
    overlap held the GPU, counted once however many ran at once."""
    total, reach = 0.0, None
    for start, end in sorted(intervals):
        if reach is None or start > reach:
            total += end - start
            reach = end
        elif end > reach:
            total += end - reach
            reach = end
    return total


def parse_cpus(text: str | None) -> set[int] | None:
    """A core list as taskset writes it ("0-15,32,40-47") as a set; None for an empty or absent one
    (no pinning). A malformed list is refused with the part that is wrong."""
    if not text or not text.strip():
        return None
    cpus: set[int] = set()
    for part in text.split(","):
        low, sep, high = part.strip().partition("-")
        if not low.isdigit() or (sep and not high.isdigit()):
            raise ValueError(f"core list {text!r}: {part!r} is not N or N-M")
        first, last = int(low), int(high) if sep else int(low)
        if last < first:
            raise ValueError(f"core list {text!r}: {part!r} runs backwards")
        cpus.update(range(first, last + 1))
    return cpus


@dataclass
class Job:
    key: str
    start: Callable[[], tuple[subprocess.Popen, Callable[[subprocess.Popen], dict]]]
    ready: Callable[[], bool] = lambda: True


@dataclass
class PoolRun:
    rows: dict[str, dict] = field(default_factory=dict)
    intervals: list[tuple[float, float]] = field(default_factory=list)
    not_started: list[str] = field(default_factory=list)
    killed: list[str] = field(default_factory=list)


def run_pool(jobs: Sequence[Job], slots: int, deadline: float, per_job_timeout_s: float,
             on_row: Callable[[str, dict], None] | None = None, poll_s: float = 0.05) -> PoolRun:  # fmt: skip
    """Run jobs (in the given order, each once `ready()`) at most `slots` at a time. None starts
    after `deadline` (time.monotonic()); one still running at the deadline, or past its own timeout,
    is killed with its process group and gets no row (the deadline) or a timeout row (its own)."""
    run = PoolRun()
    waiting = list(jobs)
    running: list[tuple[Job, subprocess.Popen, Callable[[subprocess.Popen], dict], float]] = []
    try:
        _drive(run, waiting, running, slots, deadline, per_job_timeout_s, on_row, poll_s)
    finally:
        # also when a start or a finish raised: nothing this pool started outlives it
        for job, proc, _, began in running:
            _kill(proc)
            run.intervals.append((began, time.monotonic()))  # it held the GPU until killed
            run.killed.append(job.key)
    run.not_started = [j.key for j in waiting]
    return run


def _drive(run: PoolRun, waiting: list, running: list, slots: int, deadline: float, per_job_timeout_s: float,
           on_row: Callable[[str, dict], None] | None, poll_s: float) -> None:  # fmt: skip
    while waiting or running:
        now = time.monotonic()
        if now >= deadline:
            break
        while waiting and len(running) < slots:
            job = next((j for j in waiting if j.ready()), None)
            if job is None:
                break
            waiting.remove(job)
            proc, finish = job.start()
            running.append((job, proc, finish, time.monotonic()))
        time.sleep(poll_s)
        for entry in list(running):
            job, proc, finish, began = entry
            over = time.monotonic() - began > per_job_timeout_s
            if proc.poll() is None and not over:
                continue
            if proc.poll() is None:
                _kill(proc)
                row = {"verdict": "timeout", "message": f"no verdict within {per_job_timeout_s:.0f} s"}
            else:
                row = finish(proc)
            end = time.monotonic()
            row["seconds"] = end - began
            running.remove(entry)
            run.rows[job.key] = row
            run.intervals.append((began, end))
            if on_row is not None:
                on_row(job.key, row)


def _kill(proc: subprocess.Popen) -> None:
    with contextlib.suppress(ProcessLookupError):  # it ended on its own meanwhile
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
