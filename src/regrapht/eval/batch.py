"""Batches: the order a batch's items take the device in (whatever is ready first, one task's items
in their order) and the restatement of records once the batch's end settles a task's serial
baseline. Pure functions of what they are given: the evaluator supplies its state."""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, wait
from dataclasses import dataclass

from regrapht.eval import screen
from regrapht.eval.oracle import ReferenceError
from regrapht.eval.record import Evaluation, hierarchical_reward
from regrapht.eval.reference import BenchReference, bench_bytes
from regrapht.eval.stats import SetSamples, speedup, summarize
from regrapht.tasks import Task, derive_seed


@dataclass
class Prepared:
    """An item of a batch before it runs: screened, and its compiles submitted."""

    task: Task
    source: str
    target: str
    findings: list[screen.Finding]
    candidate: Future | None
    baselines: dict[str, Future]
    started: float


class BatchSpan:
    """The `evaluate_many` calls of an open batch (`Evaluator.open_batch`), whose serial baselines
    are settled together when it closes. `depth` counts opens not yet closed."""

    def __init__(self) -> None:
        self.depth = 0
        self.prepared: list[Prepared] = []
        self.results: list[Evaluation] = []

    def add(self, prepared: list[Prepared], results: list[Evaluation]) -> bool:
        """Keep a call's items for the close while a batch is open; False (nothing kept) when none is."""
        if self.depth == 0:
            return False
        self.prepared += prepared
        self.results += results
        return True

    def close(self) -> tuple[list[Prepared], list[Evaluation]] | None:
        """One open closed: the kept items, once the outermost closes (None before, or when none
        was open)."""
        if self.depth == 0:
            return None
        self.depth -= 1
        if self.depth:
            return None
        kept = self.prepared, self.results
        self.prepared, self.results = [], []
        return kept


def next_runnable(
    prepared: list[Prepared],
    pending: list[int],
    missing: Callable[[Prepared], tuple[list[Future], bool]],
    building: Callable[[Task], bool],
    input_sets: int,
    build_of: Callable[[Task], Future | None] | None = None,
    build_now: Callable[[Task], Future] | None = None,
    build_limit: int = 1,
) -> int:
    """The first pending item that can run without waiting (compiled, its bench data built or not
    needed). Failing that, with `build_of` (a task's bench build, done or under way, or None): while
    a waiting task's build is under way, waits for it or the next compile to end and looks again, so
    no worker holds the device idle while its data is built (bench_wait: 0.12 s per candidate on an
    H100 in session 12, one candidate waiting 4.8 s). Without it, or where no waiting task's build is
    under way: a compiled one whose task's bench data comes soonest (the smallest of those being
    built, else the first), so its correctness cases run while the data is built; failing that,
    waits for the next compile to end. `missing(p)` says what `p` would wait for (its unfinished
    compiles, and whether its bench data is still to come); `building(task)` whether the task's
    bench data is being built. With `build_now` (start a task's build at once, the future), waiting
    tasks whose build nobody has started get one started, while fewer than `build_limit` waiting
    tasks' builds are under way, and are then waited for like the others:
    otherwise its worker would build the data itself, holding its device idle meanwhile (bench_wait:
    0.149 s per candidate in session 13's one-GPU run, the in-process evaluator)."""
    started: set[str] = set()
    while True:
        blocked_tasks: set[str] = set()
        compiles: list[Future] = []
        waiting: list[int] = []
        for i in pending:
            p = prepared[i]
            key = p.task.instance_key
            if key in blocked_tasks:
                continue  # an earlier item of its task waits: one task's items keep their order
            unbuilt, needs_bench = missing(p)
            if not unbuilt and not needs_bench:
                return i
            blocked_tasks.add(key)
            if unbuilt:
                compiles.extend(unbuilt)
            else:
                waiting.append(i)
        under_way = [] if build_of is None else [build_of(prepared[i].task) for i in waiting]
        if build_now is not None:
            # At most `build_limit` waiting tasks' builds under way at once (the first waiting tasks'),
            # beside the prefetch threads': a batch of many tasks must not start every build at once.
            room = build_limit - sum(1 for f in under_way if f is not None and not f.done())
            fresh = [i for i, f in zip(waiting, under_way) if f is None and prepared[i].task.instance_key not in started]
            for i in fresh[: max(0, room)]:
                started.add(prepared[i].task.instance_key)
                build_now(prepared[i].task)
            if fresh[: max(0, room)]:
                continue  # look again: those builds are under way now, or already done
        under_way = [f for f in under_way if f is not None and not f.done()]
        if under_way:
            wait(under_way + compiles, timeout=1.0, return_when=FIRST_COMPLETED)
            continue
        if waiting:
            soonest = [i for i in waiting if building(prepared[i].task)]
            if soonest:
                return min(soonest, key=lambda i: bench_bytes(prepared[i].task, input_sets))
            return waiting[0]
        if not compiles:
            return pending[0]
        wait(compiles, timeout=1.0, return_when=FIRST_COMPLETED)


def restate_serial(
    ev: Evaluation, candidate: SetSamples | None, task: Task, bench: BenchReference, secret: bytes
) -> bool:
    """A record's serial timing, speedup over serial and reward, from the task's settled baseline;
    False for a record that was never timed (`candidate`: its candidate's samples, None if none)."""
    if candidate is None or "serial" not in ev.timings:
        return False
    serial = bench.serial_samples
    batch_timing = ev.timings["serial"]
    ev.timings["serial"] = {**summarize(serial, serial, serial).to_dict(), **bench.serial}
    # What the batch's own timing said, which this record's speedup over serial and reward no
    # longer divide by.
    ev.timings["serial"]["restated_from"] = {
        "median_s": batch_timing.get("median_s"),
        "quiet": batch_timing.get("quiet"),
        "why": "timed in turns beside the batch; timed again at its end (alone, or pinned beside `concurrent` others)",
    }
    seed = derive_seed(secret, task.id, "bootstrap")
    ev.speedups["serial"] = speedup(serial, candidate.values, "serial", seed, candidate_sets=candidate.sets).to_dict()
    if ev.status == "correct" and ev.reward_baseline == "serial":
        ev.reward = hierarchical_reward("correct", ev.speedups["serial"]["value"])
    return True


def settle_serial_baselines(
    groups: list[tuple[Task, Future | None, list[int]]],
    results: list[Evaluation],
    timed: dict[int, SetSamples],
    settle: Callable[[list[tuple[Task, BenchReference]]], list[tuple[bool, float]]],
    before: Callable[[], None],
    secret: bytes,
) -> None:
    """The batch's quiet moment: `groups` are its tasks, each with its bench build (None if never
    started) and the indices of its records. Each task whose batch-time serial timing was not kept
    and whose bench data is still kept is timed again with nothing else of the evaluator running
    (`settle`, given them all: per task, whether it was settled and its seconds; eval/settle.py),
    and its records (`timed`: id(record) -> its candidate's samples) are restated with it. `before`
    runs once first, when any is to be settled."""
    unsettled: list[tuple[Task, BenchReference, list[int]]] = []
    for task, future, indices in groups:
        if future is None or not future.done() or future.exception() is not None:
            continue  # never built (no correct candidate), failed, or dropped to make room
        bench: BenchReference = future.result()
        try:
            bench.wait_serial()  # timed in turns after its data was handed out: it ends first
        except ReferenceError:
            continue  # the timing failed (its data dropped meanwhile): no record divides by it
        if bench.serial.get("source") == "measured" and bench.serial.get("not_kept"):
            unsettled.append((task, bench, indices))
        # else kept: from the store, or this batch's own timing was acceptable
    if not unsettled:
        return
    before()
    # System-wide monotonic clock (Linux): spans of several lanes' settles can be merged by a reader.
    began = time.monotonic()
    settled = settle([(task, bench) for task, bench, _ in unsettled])
    span = {"began": began, "ended": time.monotonic(), "tasks": len(unsettled)}
    for (task, bench, indices), (ok, seconds) in zip(unsettled, settled):
        if not ok:
            continue  # the batch's timing stands, and says why it was not kept
        settle_s = round(seconds, 4)
        for i in indices:
            if restate_serial(results[i], timed.get(id(results[i])), task, bench, secret):
                # The task's, as bench_build is: a cost of the batch's end, not of each record. Tasks
                # settled at once overlap: the settle's wall time is its span's.
                results[i].seconds["serial_settle"] = settle_s
                results[i].timings["serial"]["settle_span"] = span
