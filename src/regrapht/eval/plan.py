"""A batch's plan over a pool's lanes: which lane runs each task's items (`assign`), and a lane's
share as one group per task (`task_groups`). eval/spread.py runs the plan."""

from __future__ import annotations

import math
from collections.abc import Sequence

__all__ = ["assign", "item_cost", "task_groups"]

# A task's costs at its first item of a lane's call, not each item's: its correctness references, its
# inputs offered and its judge staged ahead of the worker.
ONCE = ("reference", "inputs_offer_ahead", "judge_stage_ahead")
# What a worker spends on the device itself, as the worker measures it.
DEVICE_WORK = ("bench_setup", "inputs_copy", "correctness", "timing")
# Of the worker's bench setup, its waits on the parent (bench data still being built, the judge
# staged): the task's build, not each item's work.
WAITS = ("bench_wait", "judge_stage")


def item_cost(seconds: dict[str, float]) -> tuple[float, float | None]:
    """An item's seconds in its lane's device loop (a record's `seconds`) as (the task's own device
    work, the loop's overhead around the worker), less the task's one-time costs. The overhead is None
    where no worker ran, or where it stopped before its timing (a crash, a hang, a wrong answer):
    its whole loop time is then its task's. A plan weighs an item as its task's work plus the pool's
    overhead: the loop's whole seconds of a task's first items, measured while every bench build
    loads the host's cores, ran 1.5-11x its later items' on two H100s (session 17), where the work
    and the pool's overhead came within 15%."""
    waits = sum(seconds.get(k, 0.0) for k in WAITS)
    looped = max(0.0, seconds.get("device_loop", 0.0) - sum(seconds.get(k, 0.0) for k in ONCE) - waits)
    if "worker" not in seconds or "timing" not in seconds:
        return looped, None
    work = min(looped, max(0.0, sum(seconds.get(k, 0.0) for k in DEVICE_WORK) - waits))
    return work, looped - work


def assign(
    keys: Sequence[str],
    lanes: Sequence[str],
    home: dict[str, str] | None = None,
    item_s: dict[str, float] | None = None,
) -> dict[str, list[int]]:
    """Item positions per lane. Each key's items stay on one lane (its home where it has one) unless
    they exceed a lane's even share; the heaviest groups are placed first, each on the least loaded
    lane, and never cut so that less than a quarter of it goes elsewhere. A group weighs its items,
    each at its key's seconds per item in `item_s` (what earlier batches measured; a key not in it
    weighs the mean of those that are), or 1 where none is known: then the share is
    ceil(items / lanes). Positions within a lane keep the given order."""
    home, item_s = home or {}, item_s or {}
    known = [v for v in item_s.values() if v > 0]
    default = sum(known) / len(known) if known else 1.0
    weight = {key: item_s.get(key) or default for key in keys}
    groups: dict[str, list[int]] = {}
    for i, key in enumerate(keys):
        groups.setdefault(key, []).append(i)
    if known:
        cap = sum(weight[key] * len(positions) for key, positions in groups.items()) / max(1, len(lanes))
    else:
        cap = float(-(-len(keys) // max(1, len(lanes))))
    load = {lane: 0.0 for lane in lanes}
    out: dict[str, list[int]] = {lane: [] for lane in lanes}
    for key, positions in sorted(groups.items(), key=lambda kv: -len(kv[1]) * weight[kv[0]]):
        rest = positions
        preferred = home.get(key)
        while rest:
            if preferred in load and load[preferred] < cap:
                lane = preferred
            else:
                lane = min(lanes, key=lambda name: (load[name], lanes.index(name)))
            preferred = None
            # Rounded up: a group is cut only where it passes the share by a whole item or more; and
            # never into a sliver (less than a quarter of it), which would cost a second bench build
            # for a second or two of balance (session 16: histogram_u8 cut 9 and 1 on two H100s).
            room = max(1, math.ceil((cap - load[lane]) / weight[key] - 1e-9))
            if 0 < len(rest) - room < max(1, len(positions) // 4):
                room = len(rest)
            out[lane] += rest[:room]
            load[lane] += len(rest[:room]) * weight[key]
            rest = rest[room:]
    return {lane: sorted(positions) for lane, positions in out.items()}


def task_groups(positions: list[int], keys: Sequence[str]) -> list[list[int]]:
    """A lane's positions as one group per key, in the order of each key's first item."""
    groups: dict[str, list[int]] = {}
    for i in positions:
        groups.setdefault(keys[i], []).append(i)
    return list(groups.values())
