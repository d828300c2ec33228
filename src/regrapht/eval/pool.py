"""The device pool: one lane per GPU (or GPU slice, or CPU lane), behind the Evaluator's API.

`DevicePool.evaluate_many` spreads a batch over its lanes and returns the records in the given
order. Its choices:

- A task's items go to one lane, the same lane batch after batch (its "home"), so its bench data is
  built once and its retained copy reused by later batches. A task is split over lanes only where
  its items are more than a lane's even share of the batch (a search on one task); each lane it is
  split over then builds its bench data. A lane whose own queue is empty takes whole task groups
  that another lane has not started (eval/spread.py), and the task's home moves with it. A serial
  baseline the machine's store keeps (eval/serial_baselines.py, shared by the lanes) is not timed
  again by any lane.
- Every lane has the same secret, so its inputs, and so every verdict, are those of one evaluator:
  the number of lanes changes where a candidate runs, never its verdict. A candidate's timings and
  speedups come from one lane, its baselines timed beside it on the same GPU; records name the lane
  and its GPU (fingerprint: lane, gpu, gpu_index, gpu_uuid).
- A lane that dies is reported (`deaths`); a local one is started again (RESTARTS times at most).
  What it was running is run again on the lanes, one candidate at a time, so a candidate that brings its lane down is
  found. One that brings down two lanes while running alone is recorded
  as a runtime_error that says so. When no lane is left, `PoolExhausted` names what is unfinished.
"""

from __future__ import annotations

import dataclasses
import os
import queue
import statistics
import threading
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any

from regrapht.eval import toolchain
from regrapht.eval.config import EvalConfig
from regrapht.eval.devices import LaneSpec, lanes_for, machine_name, split_cores
from regrapht.eval.lanes import (
    Item,
    Lane,
    LaneDied,
    LaneState,
    LocalLane,
    evaluate_one,
    prefetch,
    release,
    task_key,
)
from regrapht.eval.plan import item_cost
from regrapht.eval.record import Evaluation
from regrapht.eval.spread import Batch, PoolExhausted, assign, lost_record
from regrapht.tasks import Task

# Items whose overhead around the worker the pool keeps (eval/plan.item_cost).
OVERHEAD_SAMPLES = 256

__all__ = ["DevicePool", "PoolExhausted", "assign", "lost_record", "open_evaluator", "pool_config"]

GIVE_UP_AFTER = 2  # lanes a candidate may bring down while running alone before it is judged for it
RESTARTS = 3  # a local lane that died is started again this many times at most


def pool_config(config: EvalConfig | None, lanes: int) -> EvalConfig:
    """The configuration every lane shares: one secret (the same inputs on every lane), the
    machine's cores divided between the lanes' compile pools, and its memory for kept bench data
    between the lanes' caches."""
    config = dataclasses.replace(config or EvalConfig())
    if config.secret is None:
        config.secret = os.urandom(32)
    if config.jobs is None:
        config.jobs = max(1, toolchain.usable_cores() // max(1, lanes))
    if config.reference_cache_gib is None:
        # Each lane keeps its own tasks' bench data: the machine's quarter is shared, not taken per lane.
        config.reference_cache_gib = max(2 << 30, EvalConfig().reference_cache_bytes() // max(1, lanes)) / (1 << 30)
    return config


class DevicePool:
    """Evaluator-compatible (`evaluate`, `evaluate_many`, `prefetch`, `release`, `close`, `config`)
    over several lanes. Build it with `DevicePool.local(config, specs)` for the lanes of this host, or
    `regrapht.eval.ray_pool.ray_pool` for a Ray cluster's."""

    def __init__(
        self,
        config: EvalConfig,
        lanes: Sequence[Lane],
        give_up_after: int = GIVE_UP_AFTER,
        restart: Callable[[Lane], Lane] | None = None,
    ) -> None:
        """`restart(dead_lane)` makes a lane to replace a dead one, as soon as its death is seen (at most
        RESTARTS times per lane); without it, a dead lane stays dead."""
        if not lanes:
            raise ValueError("a device pool needs at least one lane")
        self.config = config
        self.lanes = list(lanes)
        self.give_up_after = give_up_after
        self.deaths: list[str] = []  # one line per lane that died, in order
        self.restarts: dict[str, int] = {}  # lane name -> times it was started again
        self.taken: list[tuple[str, str, str]] = []  # (lane, from lane, task id) per task group one lane took from another
        self.sent_before: dict[str, set[str]] = {}  # lane -> task keys whose builds earlier batches sent it
        self._restart = restart
        # The last batch's counters per lane (eval/spread.py): calls, items, busy_s, settle_s, idle_s.
        self.lane_stats: dict[str, Any] = {}
        self._home: dict[str, str] = {}  # task key -> its lane
        # Per task key, the seconds an item costs a lane's device loop (eval/plan.item_cost: the task's
        # mean device work, plus the pool's typical overhead for each item a worker timed) and how many
        # items it is over: later batches' plans weigh groups by it (plan.assign).
        self.item_s: dict[str, float] = {}
        self.item_counts: dict[str, int] = {}
        self._work_s: dict[str, float] = {}  # per key, mean device work an item
        self._learning = threading.Lock()
        self._worker_share: dict[str, float] = {}  # per key, the share of items a worker ran
        # The loop's overhead around a worker, by item (the latest): their median is robust to a hung
        # or crashed candidate's whole timeout.
        self._overheads: deque[float] = deque(maxlen=OVERHEAD_SAMPLES)
        self._keys: dict[int, tuple[Task, str]] = {}

    @classmethod
    def local(cls, config: EvalConfig | None, specs: Sequence[LaneSpec], **kwargs: Any) -> DevicePool:
        shared = pool_config(config, len(specs))
        if shared.pin_lanes:
            specs = split_cores(list(specs), toolchain.usable_core_set())
        lanes: list[Lane] = []
        try:
            for spec in specs:
                lanes.append(LocalLane(spec, shared))
        except BaseException:
            for lane in lanes:
                lane.close()
            raise
        return cls(shared, lanes, restart=lambda dead: LocalLane(dead.spec, shared), **kwargs)  # type: ignore[attr-defined]

    def revive(self) -> None:
        """Start again the lanes that died, where the pool can (local lanes, RESTARTS times each)."""
        if self._restart is None:
            return
        for i, lane in enumerate(self.lanes):
            if not lane.alive and self.restarts.get(lane.name, 0) < RESTARTS:
                lane.close()
                self.restarts[lane.name] = self.restarts.get(lane.name, 0) + 1
                self.lanes[i] = self._restart(lane)

    def machine(self, target: str) -> str:
        """The machine the lanes measure on, as stored evaluations are filed: a pool's lanes are of one
        kind (checked where they are made); lanes that do not say are this host's."""
        prefix = "gpu:" if target == "cuda" else "cpu:"
        said = {m for m in (getattr(lane, "machine", None) for lane in self.lanes) if m and m.startswith(prefix)}
        return said.pop() if len(said) == 1 else machine_name(target)

    @property
    def cuda_devices(self) -> int:
        """How many GPUs the pool's lanes run on (0 for CPU lanes): several lanes on one GPU count once.
        Every lane it holds counts, a dead local lane too, since the pool starts it again at its next
        batch. Scorers above eval/ (the RL environment) read it to know whether cuda candidates can
        run at all, instead of probing this host, whose GPUs may not be the lanes'."""
        return len({gpu for gpu in (getattr(lane, "gpu", None) for lane in self.lanes) if gpu})

    @property
    def batch_size(self) -> int:
        """Items worth handing over at once: enough to fill every lane's compile pool."""
        return max(toolchain.usable_cores(), 4 * len(self.lanes))

    def __enter__(self) -> DevicePool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close every lane at once: each removes its scratch (gigabytes of bench data) and ends its
        workers, and none need wait for another's."""
        closers = [threading.Thread(target=lane.close, name=f"regrapht-close-{lane.name}") for lane in self.lanes]
        for closer in closers:
            closer.start()
        for closer in closers:
            closer.join()

    def learn(self, key: str, seconds: dict[str, float]) -> None:
        """Add an item's record `seconds` (with its `device_loop`) to its task's cost."""
        work, overhead = item_cost(seconds)
        with self._learning:
            seen = self.item_counts.get(key, 0)
            self._work_s[key] = (self._work_s.get(key, 0.0) * seen + work) / (seen + 1)
            self._worker_share[key] = (self._worker_share.get(key, 0.0) * seen + (overhead is not None)) / (seen + 1)
            self.item_counts[key] = seen + 1
            if overhead is not None:
                self._overheads.append(overhead)
            typical = statistics.median(self._overheads) if self._overheads else 0.0
            for k, w in self._work_s.items():  # the overhead moved: every task's cost with it
                self.item_s[k] = w + self._worker_share[k] * typical

    def item_seconds(self, task: Task) -> tuple[float, int] | None:
        """The seconds an item of the task costs a lane's device loop (`learn`), and over how many
        items; None before any came back."""
        key = self._key(task)
        return (self.item_s[key], self.item_counts[key]) if key in self.item_s else None

    def _live(self) -> list[Lane]:
        return [lane for lane in self.lanes if lane.alive]

    def _key(self, task: Task) -> str:
        known = self._keys.get(id(task))
        if known is None or known[0] is not task:
            known = self._keys[id(task)] = (task, task_key(task))  # the task is kept: its id stays its own
        return known[1]

    def _lane(self, name: str) -> Lane | None:
        return next((lane for lane in self._live() if lane.name == name), None)

    def _home_lane(self, task: Task) -> Lane:
        live = self._live()
        if not live:
            raise PoolExhausted("every lane of the pool has died: " + "; ".join(self.deaths))
        key = self._key(task)
        lane = self._lane(self._home.get(key, ""))
        if lane is None:
            homes = list(self._home.values())
            lane = min(live, key=lambda candidate: homes.count(candidate.name))
            self._home[key] = lane.name
        return lane

    # ---- the Evaluator's API ---------------------------------------------------------------------
    def prefetch(self, tasks: list[Task], threads: int = 1) -> None:
        by_lane: dict[str, tuple[Lane, list[Task]]] = {}
        for task in tasks:
            lane = self._home_lane(task)
            by_lane.setdefault(lane.name, (lane, []))[1].append(task)
        for lane, mine in by_lane.values():
            lane.post(prefetch, mine, threads)

    def release(self, task: Task) -> None:
        lane = self._lane(self._home.get(self._key(task), ""))
        if lane is not None:
            lane.post(release, task)

    def evaluate(
        self, task: Task, source: str, target: str = "cuda", baselines: dict[str, str] | None = None
    ) -> Evaluation:
        if not baselines:
            return self.evaluate_many([(task, source, target)])[0]
        while True:  # bounded: every pass either returns or loses a lane for good
            lane = self._home_lane(task)
            try:
                return lane.call(evaluate_one, task, source, target, baselines)
            except LaneDied as exc:
                self.deaths.append(str(exc))

    def evaluate_many(self, items: Sequence[Item]) -> list[Evaluation]:
        return Batch(self, list(items)).run()

    def map(
        self,
        fn: Callable[..., Any],
        calls: Sequence[tuple[Any, ...]],
        on_result: Callable[[int, Any], None] | None = None,
    ) -> list[Any]:
        """`fn(lane_state, *call)` for every call, each on whichever lane is free, results in the
        calls' order (`on_result(position, result)` as each ends). A call whose lane dies runs again on
        another; an exception it raises is raised here once every call has ended."""
        results: list[Any] = [None] * len(calls)
        todo = deque(range(len(calls)))
        events: queue.Queue[tuple[Lane, int, Any, LaneDied | None]] = queue.Queue()
        busy: set[str] = set()

        def work(lane: Lane, i: int) -> None:
            try:
                events.put((lane, i, lane.call(fn, *calls[i]), None))
            except LaneDied as exc:
                events.put((lane, i, None, exc))
            except Exception as exc:
                events.put((lane, i, exc, None))

        def dispatch() -> None:
            for lane in self._live():
                if lane.name not in busy and todo:
                    busy.add(lane.name)
                    threading.Thread(target=work, args=(lane, todo.popleft()), daemon=True).start()

        dispatch()
        while busy:
            lane, i, out, died = events.get()
            busy.discard(lane.name)
            if died is not None:
                self.deaths.append(str(died))
                todo.appendleft(i)
            else:
                results[i] = out
                if on_result is not None and not isinstance(out, Exception):
                    on_result(i, out)
            dispatch()
        if todo:
            raise PoolExhausted(
                f"every lane of the pool has died with {len(todo)} of {len(calls)} calls unfinished: "
                + "; ".join(self.deaths)
            )
        for out in results:
            if isinstance(out, Exception):
                raise out
        return results


def runs_in_process(specs: Sequence[LaneSpec]) -> bool:
    """One lane on what this process sees first (the first visible GPU, or the CPU) needs no lane
    process: the Evaluator runs here, as without a pool."""
    return len(specs) == 1 and (specs[0].gpu is None or (specs[0].gpu,) == toolchain.gpus()[:1])


def open_evaluator(
    config: EvalConfig | None,
    target: str,
    gpus: str | None = None,
    lanes: int = 1,
    ray_address: str | None = None,
) -> Any:
    """The evaluator a command runs on, from its --gpus, --lanes and --ray: a pool over the Ray
    cluster's lanes, a pool of lane processes on this host, or, where one lane on the device this
    process sees first suffices, the Evaluator in this process. Raises LaneSpecError for lane lists
    that name nothing usable."""
    if ray_address is not None:
        from regrapht.eval.ray_pool import ray_pool

        return ray_pool(config, ray_address, target, lanes_per_gpu=lanes, cpu_lanes_per_node=lanes)
    specs = lanes_for(target, gpus, lanes)
    if runs_in_process(specs):
        from regrapht.eval.evaluator import Evaluator

        return Evaluator(config or EvalConfig())
    return DevicePool.local(config, specs)


def check_on_lane(
    state: LaneState,
    task: Task,
    gpu: bool,
    config: EvalConfig,
    reference_threads: int,
    train: list[Task] | None = None,
) -> Any:
    """`regrapht tasks check` of one task in a lane's process (on its GPU), with the lane's share of
    the cores for its compiles; a test task is screened against `train` as `check_tasks` does."""
    from regrapht.eval.suitecheck import check_tasks

    [check] = check_tasks(
        [task],
        gpu,
        dataclasses.replace(config, jobs=state.config.jobs),
        reference_threads=reference_threads,
        train=train,
    )
    return check
