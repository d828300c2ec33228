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
core only), its median known to `serial_max_median_error` (beside more than
`serial_pinned_pool_beside` others, no pooling across runs lets a noisy pinned timing through). Any
other task is timed again alone, as before, and its record says why.
`benchmarks/serial_pinned.py` measures, per task, how far pinned medians sit from alone
ones on a host: the check the spread rule cannot make. Where a host shows such a bias,
`TimingConfig.serial_settle_check` times each pinned task briefly alone as well, and times it again
in full where the two medians disagree (`disagreement`); `serial_settle_width = 1` settles one task
after another: alone, or pinned beside the other lanes' where a pool's lanes settle at once.

With `serial_settle_lanes_at_once` (off by default: on an H100 host its medians sat -21% to +40%
from the alone ones, session 15), lanes of a pool with cores of their own settle at the same time,
each pinned within its own cores (`serial_settle_width` timings a lane, one by default), so a host
of two GPUs settles in about half the wall time of one: one task after another on a single GPU took
62-178 s of a 150-266 s batch, a cost the second GPU did not share (sessions 13 to 15). The lanes
share the batch's slots
(`HostSlots`): each lane owns as many as its width, and a lane done with its pinned timings lends
its slots to the lanes with tasks left. A lock of the batch (`SettleLock`) keeps every timing that
must run alone (a re-time, a check) apart from the other lanes' pinned timings: pinned timings hold
it shared, alone ones exclusively (flock has no writer preference: an alone re-time may wait until
the other lanes' pinned timings are all done). A single evaluator takes neither.

A pinned timing beside few other lanes' (`serial_pinned_pool_beside`, one by default; a lane's own
width never earns it) is kept from a pool of runs as an alone one is, where its spread never pins its median: those
references vary between processes (a property of the reference, not of its neighbours), and
re-timing them alone doubled their cost. Beside more, the rule stays strict.

Records say what happened: `timings.serial.concurrent` (other timings that could run beside it, an
upper bound: the slots less one; 0 alone), and `pinned_rejected` where a pinned timing was replaced
by one alone.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import queue
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Protocol

import numpy as np

from regrapht.eval.cpu_meter import core_siblings
from regrapht.eval.oracle import ReferenceError
from regrapht.eval.reference import BenchReference
from regrapht.eval.serial_baselines import KEEP_MIN_SAMPLES, POOL_KEEP_TIMINGS, SerialBaseline
from regrapht.tasks import Task

log = logging.getLogger(__name__)
if os.environ.get("REGRAPHT_LOG_SETTLE"):  # a benchmark's lanes (processes of their own) report their settle too
    log.setLevel(logging.INFO)
    if not log.handlers:
        _handler = logging.StreamHandler()
        _handler.setFormatter(logging.Formatter("%(asctime)s %(process)d %(message)s"))
        log.addHandler(_handler)


class Settler(Protocol):
    """What the settle needs of the oracle (`eval/oracle.Oracle`)."""

    def settle(self, task: Task, bench: BenchReference) -> bool: ...

    def time_pinned(self, task: Task, bench: BenchReference, cpu: int, beside: int) -> SerialBaseline: ...

    def keep_settled(self, task: Task, bench: BenchReference, baseline: SerialBaseline) -> None: ...

    def time_check(self, task: Task, bench: BenchReference) -> SerialBaseline: ...


# Standard errors by which a pinned median may differ from a short alone check's, and the least
# relative difference that counts (the samples' spread can read as zero for a handful of samples).
CHECK_SIGMAS = 3.0
CHECK_FLOOR = 0.01


class SettleLock:
    """A reader-writer lock on a file (flock) shared by the lanes settling at once: pinned timings
    hold it shared, so lanes time side by side; a timing that must run alone holds it exclusively, so
    no other lane's pinned timing runs beside it. Each hold opens its own descriptor, so threads of
    one process and processes alike exclude each other. The pool opens the file once before it lets
    lanes settle at once (`usable`)."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)

    def usable(self) -> bool:
        try:
            os.close(os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600))
        except OSError:
            return False
        return True

    @contextlib.contextmanager
    def _hold(self, mode: int) -> Iterator[None]:
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, mode)
            yield
        finally:
            os.close(fd)  # closing the descriptor gives the lock back

    def shared(self) -> contextlib.AbstractContextManager[None]:
        return self._hold(fcntl.LOCK_SH)

    def exclusive(self) -> contextlib.AbstractContextManager[None]:
        return self._hold(fcntl.LOCK_EX)


class _NoLock:
    """A single evaluator's settle: nothing else of the evaluator times beside it."""

    def shared(self) -> contextlib.AbstractContextManager[None]:
        return contextlib.nullcontext()

    def exclusive(self) -> contextlib.AbstractContextManager[None]:
        return contextlib.nullcontext()


class HostSlots:
    """The pinned timings a pool's lanes run at once while they settle: `count` lock files in
    `folder`, a timing holding one (flock) for its length. A lane owns its `home` slots and waits
    for nobody else on them; once its pinned timings are done (`lend`), it marks them lent, and a
    lane with tasks left may take them too. So the settle's wall time is about its total over
    `count` rather than the most loaded lane's share (one task's serial reference took 46 s of a
    141 s settle on an H100 host, session 15), and no lane waits on another's queue."""

    POLL_S = 0.02

    def __init__(self, folder: Path, count: int, home: Sequence[int]) -> None:
        self.folder, self.count, self.home = Path(folder), max(1, count), list(home)

    def _lent(self, k: int) -> bool:
        return (self.folder / f"lent-{k}").exists()

    @contextlib.contextmanager
    def hold(self) -> Iterator[None]:
        fds = {k: os.open(self.folder / f"slot-{k}", os.O_RDWR | os.O_CREAT, 0o600) for k in range(self.count)}
        try:
            while True:
                free = self.home + [k for k in fds if k not in self.home and self._lent(k)]
                if any(_try_flock(fds[k]) for k in free):
                    break
                time.sleep(self.POLL_S)
            yield
        finally:
            for fd in fds.values():
                os.close(fd)  # closing the held one frees its slot

    def lend(self) -> None:
        """This lane's pinned timings are done: other lanes may take its slots."""
        for k in self.home:
            with contextlib.suppress(OSError):
                (self.folder / f"lent-{k}").touch()


def _try_flock(fd: int) -> bool:
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def settle_cores_and_slots(
    cores: list[int], width: int, slots: dict | None
) -> tuple[list[int], HostSlots | None, SettleLock | None]:
    """The cores a lane's settle pins to, the slots it shares and the lock it times under: `width`
    of its `cores` (0: all of them), the last ones, since Linux sends most interrupts to the first.
    With `slots` (lanes settling at once: the pool's `{"folder", "count", "home", "lock"}`), as many
    cores as the slots of every lane, for when the others are done."""
    own = min(width, len(cores)) if width > 0 else len(cores)
    if not slots:
        return (cores[-own:] if own > 0 else list(cores)), None, None
    count = int(slots["count"])
    chosen = cores[-count:] if count > 0 else list(cores)
    return chosen, HostSlots(Path(slots["folder"]), count, slots["home"]), SettleLock(Path(slots["lock"]))


def share_physical_cores(shares: Sequence[set[int]]) -> list[list[int]]:
    """Per lane, the logical CPUs of its share (one per physical core) its settle may pin timings to,
    no physical core given to two lanes. Where shares split SMT siblings (a lane's CPU 3 and another's
    CPU 19 on one core), each such core goes to the lane with fewest so far, so lanes that settle at
    once never time on one core."""
    owner_of = {cpu: lane for lane, share in enumerate(shares) for cpu in share}
    out: list[list[int]] = [[] for _ in shares]
    seen: set[int] = set()
    for cpu in sorted(owner_of):
        if cpu in seen:
            continue
        siblings = core_siblings(cpu) & owner_of.keys()
        seen |= siblings
        lanes = sorted({owner_of[c] for c in siblings}, key=lambda lane: (len(out[lane]), lane))
        lane = lanes[0]
        out[lane].append(min(c for c in siblings if owner_of[c] == lane))
    return [sorted(cores) for cores in out]


def pinned_problem(
    baseline: SerialBaseline, max_median_error: float, max_background: float, pool_beside: int = 0
) -> str | None:
    """Why a pinned timing must be replaced by one alone, or None: the alone rule, with its
    pooled-runs exception only for a timing beside at most `pool_beside` others."""
    if not baseline.samples:
        return "no samples"
    disturbed = baseline.disturbed(max_background)
    if disturbed is not None:
        return disturbed + " (on its own physical core)"
    if len(baseline.samples) < KEEP_MIN_SAMPLES:
        return f"{len(baseline.samples)} sample(s), fewer than {KEEP_MIN_SAMPLES}"
    pooled = baseline.timings >= POOL_KEEP_TIMINGS and baseline.concurrent <= pool_beside
    if baseline.rel_median_error > max_median_error and not pooled:
        return (
            f"its median is known to {baseline.rel_median_error:.2%} only ({len(baseline.samples)} samples spread "
            f"by {baseline.rel_iqr:.1%}; at most {max_median_error:.1%})"
        )
    return None


def disagreement(pinned: SerialBaseline, alone: SerialBaseline) -> str | None:
    """Why a pinned median and a short alone check's disagree, or None: their difference over the
    errors of both medians, at least CHECK_FLOOR of the alone median."""
    if not alone.samples:
        return "the alone check gave no samples"
    diff = abs(pinned.median_s / alone.median_s - 1)
    error = (pinned.rel_median_error**2 + alone.rel_median_error**2) ** 0.5
    allowed = max(CHECK_FLOOR, CHECK_SIGMAS * error) if error != float("inf") else float("inf")
    if diff > allowed:
        return (
            f"its median ({pinned.median_s * 1e3:.4g} ms) differs from a short alone check's "
            f"({alone.median_s * 1e3:.4g} ms) by {diff:.2%} (at most {allowed:.2%})"
        )
    return None


def settle_tasks(
    items: Sequence[tuple[Task, BenchReference]],
    settler: Settler,
    cores: Sequence[int],
    max_median_error: float,
    max_background: float,
    check: bool = False,
    lock: SettleLock | _NoLock | None = None,
    pool_beside: int = 0,
    slots: HostSlots | None = None,
) -> list[tuple[bool, float]]:
    """Settle each task's serial baseline; per item, whether it was settled (False: its reference
    failed, the batch's timing stands) and the seconds its settle took (its pinned timing, any alone
    check and any alone re-time). Pinned, up to one task per core of `cores` (one logical CPU per
    physical core) at once, where several tasks and cores, or `slots` shared with other lanes, make
    it worth it; otherwise one task after another, alone. With `check`, a pinned
    timing that passes the rule must also agree with a short alone timing (`disagreement`). Alone
    timings hold `lock` exclusively, pinned ones shared (`SettleLock`). With `slots`, each pinned
    timing also holds one of the host's slots (`HostSlots`): up to one per core of `cores` runs here
    while other lanes leave slots free, and every timing counts the slots less one as beside it."""
    lock = lock or _NoLock()
    out: list[tuple[bool, float]] = [(False, 0.0)] * len(items)

    def alone(task: Task, bench: BenchReference) -> bool:
        with lock.exclusive():
            began = time.perf_counter()
            ok = settler.settle(task, bench)
        log.info("serial settle: %s alone, %.1f s (%s)", task.id, time.perf_counter() - began, bench.serial.get("source") if ok else "failed")
        return ok

    if not items:
        return out
    if not cores or (slots is None and (len(cores) < 2 or len(items) < 2)):
        for n, (task, bench) in enumerate(items):
            began = time.perf_counter()
            out[n] = (alone(task, bench), time.perf_counter() - began)
        return out
    width = min(len(cores), len(items))
    beside = slots.count - 1 if slots is not None else width - 1
    held = slots.hold if slots is not None else contextlib.nullcontext
    free: queue.Queue[int] = queue.Queue()
    for cpu in cores[:width]:
        free.put(cpu)

    def pinned(n: int) -> tuple[SerialBaseline | None, float]:
        cpu = free.get()
        try:
            with held(), lock.shared():
                began = time.perf_counter()  # its own timing, not the wait for a slot
                try:
                    baseline = settler.time_pinned(items[n][0], items[n][1], cpu, beside)
                except ReferenceError:
                    return None, time.perf_counter() - began
                seconds = time.perf_counter() - began
                log.info("serial settle: %s pinned on cpu %d beside %d, %.1f s, %d timing(s)", items[n][0].id, cpu, beside, seconds, baseline.timings)
                return baseline, seconds
        finally:
            free.put(cpu)

    # The longest timings first (where a bench knows its serial time), so the last wave is short.
    order = sorted(range(len(items)), key=lambda n: -_serial_guess(items[n][1]))
    try:
        with ThreadPoolExecutor(max_workers=width, thread_name_prefix="regrapht-settle") as threads:
            timed_in_order = list(threads.map(pinned, order))
    finally:
        if slots is not None:
            slots.lend()
    timed: list[tuple[SerialBaseline | None, float]] = [(None, 0.0)] * len(items)
    for n, result in zip(order, timed_in_order):
        timed[n] = result
    rejected: list[tuple[int, str]] = []
    spent = [seconds for _, seconds in timed]
    # Once every pinned timing of this lane has ended, the checks and re-times below run alone.
    for n, ((task, bench), (baseline, _)) in enumerate(zip(items, timed)):
        if baseline is None:
            out[n] = (False, spent[n])
            continue
        problem = pinned_problem(baseline, max_median_error, max_background, pool_beside)
        if problem is None and check:
            began = time.perf_counter()
            try:
                with lock.exclusive():
                    problem = disagreement(baseline, settler.time_check(task, bench))
            except ReferenceError:
                problem = "its short alone check failed"
            spent[n] += time.perf_counter() - began
            if problem is None:
                baseline.checked_alone = True
        if problem is None:
            settler.keep_settled(task, bench, baseline)
            out[n] = (True, spent[n])
        else:
            rejected.append((n, problem))
    for n, problem in rejected:
        task, bench = items[n]
        began = time.perf_counter()
        ok = alone(task, bench)
        if ok:
            bench.serial["pinned_rejected"] = problem
        out[n] = (ok, spent[n] + time.perf_counter() - began)
    return out


def _serial_guess(bench: BenchReference) -> float:
    """The serial seconds a bench's batch timing measured (0 where none yet): the settle's order."""
    return float(np.median(bench.serial_samples)) if bench.serial_samples else 0.0
