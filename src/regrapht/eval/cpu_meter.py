"""How busy the rest of the machine was while one process was timed, from /proc (Linux).

A serial timing's quiet section stops the evaluator's own work, not other users' or other programs'.
The CPU time every core spent busy during the timing, less the timed process's own, says how much
else ran: the record carries it, and a timing taken beside more than a little of it is not kept as
the machine's baseline. Steal time (a virtual machine's host running other guests) counts as busy.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from regrapht.eval.devices import parse_cpulist


def _clock_ticks() -> int:
    try:
        return int(os.sysconf("SC_CLK_TCK"))
    except (ValueError, OSError):
        return 100


def busy_ticks(cpus: frozenset[int] | None = None) -> int | None:
    """Busy clock ticks since boot (user, nice, system, irq, softirq, steal) of all cores, or of the
    logical CPUs `cpus` (None where /proc cannot tell, or names none of them)."""
    try:
        text = Path("/proc/stat").read_text()
    except OSError:
        return None
    total, seen = 0, 0
    for line in text.split("\n"):
        fields = line.split()
        if not fields or not fields[0].startswith("cpu") or len(fields) < 9:
            continue
        name = fields[0][3:]
        if cpus is None and name:
            break  # the first line, "cpu", sums every core; per-core lines follow it
        if cpus is not None and (not name.isdigit() or int(name) not in cpus):
            continue
        user, nice, system, _idle, _iowait, irq, softirq, steal = (int(v) for v in fields[1:9])
        total += user + nice + system + irq + softirq + steal
        seen += 1
    return total if seen else None


def core_siblings(cpu: int) -> frozenset[int]:
    """The logical CPUs of `cpu`'s physical core (itself and its SMT siblings), from sysfs."""
    try:
        text = Path(f"/sys/devices/system/cpu/cpu{cpu}/topology/thread_siblings_list").read_text()
    except OSError:
        return frozenset({cpu})
    return frozenset(parse_cpulist(text)) | {cpu}


def one_per_core(allowed: set[int]) -> list[int]:
    """One logical CPU of each physical core that has one in `allowed` (the lowest), in order: a
    serial timing pinned to each never shares a core with another through SMT."""
    chosen: list[int] = []
    covered: set[int] = set()
    for cpu in sorted(allowed):
        if cpu in covered:
            continue
        chosen.append(cpu)
        covered |= core_siblings(cpu)
    return chosen


def process_ticks(pid: int) -> int | None:
    """User and system clock ticks of process `pid` (fields 14 and 15 of /proc/PID/stat)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat[stat.rindex(")") + 2 :].split()
    return int(fields[11]) + int(fields[12])


# /proc counts clock ticks (10 ms): over a timing of a few milliseconds one stray tick reads as
# cores of load. A reading covers at least this long; what runs after a short timing ends stands in
# for what ran during it (the reference's own exit counts as other work, a few ticks at most).
MIN_WINDOW_S = 0.5


class BackgroundMeter:
    """Started when a process's timing starts, read when it ends: the cores' busy time that was not
    that process's, as a number of cores busy on average (None where /proc cannot tell). With `cpus`
    (the timed process's physical core, when several timings run at once, each on a core of its
    own), only those CPUs' busy time counts."""

    def __init__(self, pid: int | None, cpus: frozenset[int] | None = None):
        self.pid, self.cpus = pid, cpus
        self.started = time.monotonic()
        self.busy0 = busy_ticks(cpus)
        self.own0 = process_ticks(pid) if pid else None

    def cores(self, min_window_s: float = MIN_WINDOW_S) -> float | None:
        own = process_ticks(self.pid) if self.pid else None
        wall = time.monotonic() - self.started
        if wall < min_window_s:
            time.sleep(min_window_s - wall)
        busy = busy_ticks(self.cpus)
        wall = time.monotonic() - self.started  # the window the ticks were counted over (a sleep overshoots)
        if None in (self.busy0, self.own0, busy, own) or wall <= 0:
            return None
        assert busy is not None and own is not None and self.busy0 is not None and self.own0 is not None
        others = (busy - self.busy0) - (own - self.own0)
        # /proc counts whole ticks per core: a fully busy host can read a tick or two over its cores
        cores = float(len(self.cpus)) if self.cpus is not None else float(os.cpu_count() or 1)
        return min(cores, max(0.0, others / _clock_ticks() / wall))
