"""How one batch is spread over a device pool's lanes: the plan, a queue of task groups per lane, work
sharing between lanes, and what happens to a lane's work when it dies.

- **Task groups.** The plan (`assign`) gives each task's items to one lane, its home (split over
  lanes only beyond an even share). A lane's share is a queue of groups, one per task, each run
  through one `evaluate_batch` call (two groups in one call while more than CALL_SPARE_GROUPS stay
  queued): a candidate is timed beside its baselines in one call, on one GPU, and a task's bench data
  is built once, on the lane that runs its group.
- **Ahead of each call**, the lane is sent its next groups' compiles and bench builds
  (`lanes.warm`, `lanes.prefetch`, LOOKAHEAD groups), so that they overlap its device work as they
  did when a lane ran its whole share in one call.
- **Work sharing.** A lane whose queue is empty takes the last group of the busiest lane's queue
  (the one that lane would reach last, and whose bench data it has not been asked to build ahead
  unless its queue is short), where it would finish that group first: building its bench data,
  unless it was sent it ahead, and then running it, against the rest of the other lane's call and
  queue (`Batch._pays`); a dead lane's queue is always taken. A lane whose own queue is short is
  sent that group's builds ahead (`_likely_take`), so a take rarely waits for a build. A group is taken whole and never out
  of a running call, so every guarantee above holds wherever it runs; the task's home moves with
  it, to the lane that now holds its bench data. Verdicts do not depend on where a group runs
  (every lane has the pool's secret).
- **Plans** (eval/plan.py) weigh a task by what its items cost a lane's device loop in earlier
  batches (`DevicePool.item_s`: its device work plus the loop's typical overhead), by count before any
  was measured.
- **Deaths.** What a dead lane was running is run again one candidate at a time, and what was
  queued for it goes to the other lanes; a candidate that brings down `give_up_after` lanes while
  running alone gets a runtime_error record that says so.
- **Serial baselines.** A lane's calls are one batch to its evaluator (`lanes.open_batch`, posted
  before its first call): none settles its serial baselines at its end. Once every call is done,
  the lanes settle theirs (`lanes.close_batch`), every lane's device idle, as one evaluator settles
  its batch's at its end, and the restated records replace the first ones: one lane after
  another by default, or at once with `serial_settle_lanes_at_once` (eval/settle.py; off: biased on
  an H100 host, session 15). A settle at each call's end stopped that lane's device mid-batch.
- **Counters** (`DevicePool.lane_stats`, the last batch's): per lane, its calls, items, seconds in
  calls and settling, and the rest of the batch's wall time; and a timeline of every call's and
  settle's span from the batch's start.
"""

from __future__ import annotations

import contextlib
import hashlib
import queue
import shutil
import tempfile
import threading
import time
from collections import deque
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from regrapht.eval.lanes import (
    Item,
    Lane,
    LaneDied,
    close_batch,
    evaluate_batch,
    open_batch,
    prefetch,
    release,
    warm,
)
from regrapht.eval.plan import assign, task_groups
from regrapht.eval.record import Evaluation
from regrapht.eval.settle import HostSlots, SettleLock, share_physical_cores
from regrapht.tasks import Task

if TYPE_CHECKING:
    from regrapht.eval.pool import DevicePool

# Groups of a lane's queue whose compiles and bench builds are started ahead of their call. More
# overlaps more host work with device work; fewer leaves more groups that another lane can take
# without the bench data being built twice (once ahead here, once where the group runs).
LOOKAHEAD = 2
# A call takes a second group from its lane's queue while more than this many would stay behind for
# other lanes to take: with two tasks in one call, the lane's evaluator runs one task's candidates
# while the other's bench data is still being built, instead of a worker waiting on it with its GPU.
CALL_SPARE_GROUPS = 2


def lane_cores(lane: Lane) -> set[int]:
    """The cores a local lane is pinned to (empty: unpinned, or a lane that does not say)."""
    return set(getattr(getattr(lane, "spec", None), "cores", None) or ())


class PoolExhausted(RuntimeError):
    """Every lane of the pool has died; the message says which items were left unevaluated."""


def lost_record(task: Task, source: str, target: str, lanes: list[str]) -> Evaluation:
    return Evaluation(
        task_id=task.id,
        target=target,
        status="runtime_error",
        message=(
            f"the evaluator's lane died each time it ran this candidate alone ({', '.join(lanes)}): the "
            "candidate brings down the process that runs it, and was not run again"
        ),
        candidate_sha256=hashlib.sha256(source.encode()).hexdigest(),
        reward=-1.0,
        fingerprint={"lanes_died": list(lanes)},
    )


class Batch:
    """One evaluate_many: each lane runs the groups of its queue, one call at a time on a thread of
    its own, and takes groups from the busiest lane once its own queue is empty."""

    def __init__(self, pool: DevicePool, items: list[Item]) -> None:
        self.pool = pool
        self.items = items
        self.keys: list[str] = []
        self.results: list[Evaluation | Exception | None] = [None] * len(items)
        self.queues: dict[str, deque[list[int]]] = {}
        self.ahead: dict[str, set[str]] = {}  # lane -> keys whose builds it was sent ahead of their call
        self.likely: dict[str, str] = {}  # key of another lane's group -> the lane sent its builds in case it takes it
        self.ran: dict[str, set[str]] = {}  # lane -> keys of the groups it was given
        self.sent_at: dict[tuple[str, str], float] = {}  # (lane, key) -> when its build was sent ahead
        self.alone: dict[int, list[str]] = {}  # item -> lanes that died running it alone
        # (lane, positions, records, death, the call's start and end on perf_counter, whether the lane
        # returned those records itself)
        self.events: queue.Queue[tuple[Lane, list[int], Any, LaneDied | None, tuple[float, float], bool]] = queue.Queue()
        self.busy: dict[str, list[int]] = {}  # lane -> the positions of its call in flight
        # Lanes sent open_batch (by id: a lane started again is another object, with nothing open),
        # and the positions of the records each returned since, in order (close_batch's numbering).
        self.opened: dict[int, Lane] = {}
        self.returned: dict[int, list[int]] = {}
        self.stats: dict[str, dict[str, float]] = {}
        # Each call's and settle's span (seconds from the batch's start): where a lane's time went.
        self.timeline: list[dict[str, Any]] = []
        self.began = 0.0  # run() sets it
        self.call_began: dict[str, float] = {}  # lane -> its call in flight's start (perf_counter)
        self.build_s: dict[str, float] = {}  # task key -> its bench build's seconds, as records say

    def run(self) -> list[Evaluation]:
        if not self.items:
            return []
        pool = self.pool
        pool.revive()
        live = pool._live()
        if not live:
            raise PoolExhausted("every lane of the pool has died: " + "; ".join(pool.deaths))
        self.keys = [pool._key(task) for task, _, _ in self.items]
        plan = assign(self.keys, [lane.name for lane in live], pool._home, pool.item_s)
        for lane_name, positions in plan.items():
            self.queues[lane_name] = deque(task_groups(positions, self.keys))
            for i in positions:
                pool._home.setdefault(self.keys[i], lane_name)
        began = self.began = time.perf_counter()
        began_wall = time.time()  # the timeline's zero on the wall clock (eval/trace.py's spans)
        try:
            self._run_calls()
        except Exception:
            with contextlib.suppress(Exception):
                self._close()  # no lane stays in a batch that will never close
            raise
        self._release_likely()
        for name, key in self.sent_at:  # released data stays while it fits the lane's cap
            pool.sent_before.setdefault(name, set()).add(key)
        self._close()
        wall = time.perf_counter() - began
        for stats in self.stats.values():
            stats["idle_s"] = max(0.0, wall - stats["busy_s"] - stats["settle_s"])
        pool.lane_stats = {
            "wall_s": wall,
            "lanes": {k: {n: round(v, 4) for n, v in st.items()} for k, st in self.stats.items()},
            "timeline": self.timeline,
            "began_wall": round(began_wall, 4),
        }
        unfinished = [i for i, r in enumerate(self.results) if r is None]
        if unfinished:
            names = ", ".join(sorted({self.items[i][0].id for i in unfinished}))
            raise PoolExhausted(
                f"every lane of the pool has died with {len(unfinished)} of {len(self.items)} evaluations "
                f"unfinished (tasks {names}): " + "; ".join(pool.deaths)
            )
        for r in self.results:
            if isinstance(r, Exception):
                raise r  # as Evaluator.evaluate_many does (ReferenceError: a broken task)
        return self.results  # type: ignore[return-value]

    def _run_calls(self) -> None:
        """Hand out calls until every lane's queue is empty and no call is in flight."""
        self._dispatch()
        while self.busy:
            lane, positions, out, died, (began, ended), returned = self.events.get()
            self.busy.pop(lane.name, None)
            stats = self._stats(lane)
            stats["calls"] += 1
            stats["busy_s"] += ended - began
            self._span(lane, "call", began, ended, positions)
            if died is None:
                stats["items"] += len(positions)
                for i, result in zip(positions, out):
                    self.results[i] = result
                    if isinstance(result, Evaluation):
                        self._learn(self.keys[i], result)
                if returned and id(lane) in self.returned:
                    self.returned[id(lane)] += positions
                elif not returned:
                    self.returned.pop(id(lane), None)  # its numbering is lost with the call: nothing restated
            else:
                self.opened.pop(id(lane), None)
                self._lost(lane, positions, died)
            self._dispatch()

    def _span(self, lane: Lane, kind: str, began: float, ended: float, positions: list[int]) -> None:
        """A call's or settle's span, from its start and end on perf_counter."""
        tasks = sorted({self.items[i][0].id for i in positions})
        span = {"lane": lane.name, "kind": kind, "from": round(began - self.began, 3), "to": round(ended - self.began, 3)}
        self.timeline.append({**span, "items": len(positions), "tasks": tasks} if kind == "call" else span)

    def _stats(self, lane: Lane) -> dict[str, float]:
        return self.stats.setdefault(lane.name, {"calls": 0, "items": 0, "busy_s": 0.0, "settle_s": 0.0})

    def _close(self) -> None:
        """Settle every opened lane's serial baselines and put the restated records in place of
        those the lanes returned first: one lane at a time, the rest idle, by default; with
        `serial_settle_lanes_at_once`, lanes pinned to cores of their own at once, each timing its
        tasks on its own cores (eval/settle.py)."""
        opened = [(key, lane) for key, lane in self.opened.items() if lane.alive]
        cores = self._settle_side_by_side([lane for _, lane in opened])
        if not (cores and self._close_at_once(opened, cores)):
            for key, lane in opened:
                self._close_one(key, lane)
        self.opened.clear()

    def _close_at_once(self, opened: list[tuple[int, Lane]], cores: list[list[int]]) -> bool:
        """The lanes settle at the same time, each on its physical `cores`, sharing the batch's slots
        (each owns its width and lends them when done) and a lock that keeps alone timings apart
        from pinned ones (settle.HostSlots, SettleLock); False, nothing done, where no folder for
        them can be made."""
        width = self.pool.config.timing_config.serial_settle_width
        at_once = [min(len(mine), width) if width > 0 else len(mine) for mine in cores]
        try:
            folder = tempfile.mkdtemp(prefix="regrapht-settle-")
        except OSError:
            return False
        try:
            lock = Path(folder) / "alone.lock"
            if not SettleLock(lock).usable():
                return False
            threads = []
            for k, ((key, lane), mine) in enumerate(zip(opened, cores)):
                home = list(range(sum(at_once[:k]), sum(at_once[: k + 1])))
                spec = {"folder": folder, "count": sum(at_once), "home": home, "lock": str(lock)}
                threads.append(
                    threading.Thread(
                        target=self._close_one,
                        args=(key, lane, mine, spec),
                        name=f"regrapht-close-{lane.name}",
                    )
                )
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            return True
        finally:
            shutil.rmtree(folder, ignore_errors=True)

    def _settle_side_by_side(self, lanes: list[Lane]) -> list[list[int]] | None:
        """Per lane, the physical cores it may settle on at the same time as the others, or None to
        settle one after another: fewer than two lanes, `TimingConfig.serial_settle_lanes_at_once`
        off, or a lane without cores of its own. Shares that split SMT siblings settle at once on
        physical cores divided between the lanes (`settle.share_physical_cores`); where a lane would
        be left with no physical core of its own, they settle one after another."""
        tc = self.pool.config.timing_config
        if len(lanes) < 2 or not tc.serial_settle_lanes_at_once:
            return None
        shares = [lane_cores(lane) for lane in lanes]
        if not all(shares) or sum(len(share) for share in shares) != len(set().union(*shares)):
            return None
        cores = share_physical_cores(shares)
        return cores if all(cores) else None

    def _close_one(
        self, key: int, lane: Lane, settle_cores: list[int] | None = None, slots: dict | None = None
    ) -> None:
        began = time.perf_counter()
        try:
            restated = lane.call(close_batch, settle_cores, slots) if settle_cores is not None else lane.call(close_batch)
        except LaneDied as exc:  # its records stand, with the serial timing they were judged by
            self.pool.deaths.append(str(exc))
            return
        except Exception as exc:  # a failed settle: likewise, and the other lanes still close
            self.pool.deaths.append(f"lane {lane.name}: settling its serial baselines failed: {exc}")
            return
        finally:
            self._stats(lane)["settle_s"] += time.perf_counter() - began
            self._span(lane, "settle", began, time.perf_counter(), [])
            if slots is not None:  # nothing to settle, a failure or a death: its slots go to the others
                HostSlots(Path(slots["folder"]), int(slots["count"]), slots["home"]).lend()
        order = self.returned.get(key)
        for place, record in restated if order is not None else ():
            if 0 <= place < len(order):
                self.results[order[place]] = record

    # ---- handing out work ---------------------------------------------------------------------------
    def _dispatch(self) -> None:
        idle = [lane for lane in self.pool._live() if lane.name not in self.busy]
        for lane in idle:  # own queues first: a lane takes from another only what that one cannot start now
            todo = self.queues.get(lane.name)
            if todo:
                group = todo.popleft()
                if len(todo) > CALL_SPARE_GROUPS:
                    group = group + todo.popleft()  # two tasks: one runs while the other's bench data is built
                self._start(lane, group)
        for lane in idle:
            if lane.name not in self.busy:
                group = self._take_for(lane)
                if group is not None:
                    self._start(lane, group)

    def _start(self, lane: Lane, positions: list[int]) -> None:
        for key in {self.keys[i] for i in positions}:
            self._release_likely(lane.name, key)  # built elsewhere in case of a take, not needed now
        if id(lane) not in self.opened:
            lane.post(open_batch)  # before its builds ahead: they must not time in a quiet section
            self.opened[id(lane)] = lane
            self.returned[id(lane)] = []
        self._send_ahead(lane, positions)
        self.busy[lane.name] = positions
        self.call_began[lane.name] = time.perf_counter()
        threading.Thread(
            target=self._work, args=(lane, positions), name=f"regrapht-pool-{lane.name}", daemon=True
        ).start()

    def _send_ahead(self, lane: Lane, positions: list[int]) -> None:
        """The compiles and bench builds of the lane's next LOOKAHEAD groups, posted before its call
        (a lane reads its messages in order: they start as the call does, and run beside it). The
        call's own groups go first where they were not sent ahead (a lane's first call, a group
        taken from another lane): the compile pool and the build threads take work in the order it
        comes, and the call's candidates must not queue behind the next groups' compiles. The
        likely take (`_likely_take`) comes last, in a message of its own."""
        sent = self.ahead.setdefault(lane.name, set())
        self.ran.setdefault(lane.name, set()).update(self.keys[i] for i in positions)
        ahead = task_groups(positions, self.keys) + list(self.queues.get(lane.name, ()))[:LOOKAHEAD]
        likely = self._likely_take(lane)
        if likely is not None and self.keys[likely[0]] not in sent:
            self.likely[self.keys[likely[0]]] = lane.name
        for groups in (ahead, [likely] if likely else []):  # own first; each group sent once
            groups = [g for g in groups if self.keys[g[0]] not in sent]
            if groups:
                for g in groups:
                    sent.add(self.keys[g[0]])
                    self.sent_at[(lane.name, self.keys[g[0]])] = time.perf_counter()
                lane.post(warm, [self.items[i] for group in groups for i in group])
                lane.post(prefetch, list({self.keys[g[0]]: self.items[g[0]][0] for g in groups}.values()),
                          self.pool.config.reference_threads)  # fmt: skip

    def _likely_take(self, lane: Lane) -> list[int] | None:
        """The group the lane would take once its own queue runs out, where that queue is short: the
        last of the busiest queue (as `_take_for` picks) that no other lane was sent for a take. Its
        builds go ahead, so a take costs no build while the GPU waits (session 17: two takes on two
        H100s had each waited 4.7-4.9 s for bench data)."""
        if len(self.queues.get(lane.name, ())) >= LOOKAHEAD:
            return None
        others = [(name, todo) for name, todo in self.queues.items() if todo and name != lane.name]
        if not others:
            return None
        _, todo = max(others, key=lambda named: sum(len(g) for g in named[1]))
        for group in reversed(todo):
            if self.likely.get(self.keys[group[0]], lane.name) == lane.name:
                return None if any(lane.name in self.alone.get(i, ()) for i in group) else group
        return None

    def _release_likely(self, started: str | None = None, key: str | None = None) -> None:
        """Release a lane's copy built for a take it did not make: `key`'s once it started on lane
        `started` and none of its groups is queued; every such copy at the batch's end."""
        for k, name in list(self.likely.items()):
            if key is not None and (k != key or name == started or any(
                    self.keys[g[0]] == k for todo in self.queues.values() for g in todo)):  # fmt: skip
                continue
            del self.likely[k]
            lane = self.pool._lane(name)
            if lane is not None and k not in self.ran.get(name, set()):
                self.ahead.get(name, set()).discard(k)
                lane.post(release, self.items[self.keys.index(k)][0])

    def _take_for(self, thief: Lane) -> list[int] | None:
        """The group an idle lane takes: the last of the queue with the most items waiting, among
        groups the thief may run (not a candidate that already brought the thief down), and only
        where the thief would finish it first (`_pays`: always, from a lane no longer alive)."""
        victims = sorted(
            (name for name, todo in self.queues.items() if todo and name != thief.name),
            key=lambda name: -sum(len(g) for g in self.queues[name]),
        )
        for name in victims:
            todo = self.queues[name]
            for place in range(len(todo) - 1, -1, -1):
                group = todo[place]
                if any(thief.name in self.alone.get(i, ()) for i in group):
                    continue
                if not self._pays(thief, name, list(todo)[: place + 1]):
                    break  # the victim reaches its earlier groups sooner still
                todo.remove(group)
                key = self.keys[group[0]]
                task = self.items[group[0]][0]
                self.pool.taken.append((thief.name, name, task.id))
                self.pool._home[key] = thief.name  # where its bench data will be from now on
                victim = self.pool._lane(name)
                still_there = any(self.keys[g[0]] == key for g in todo) or any(
                    self.keys[i] == key for i in self.busy.get(name, ())
                )
                if victim is not None and key in self.ahead.get(name, set()) and not still_there:
                    self.ahead[name].discard(key)
                    victim.post(release, task)  # built ahead there for nothing: dropped once built
                return group
        return None

    def _learn(self, key: str, record: Evaluation) -> None:
        """What a record says of its task's costs: its bench build's seconds (for taking groups in
        this batch), and its seconds in its lane's device loop (for the plans of later batches: the
        pool keeps a cost per task, `DevicePool.learn`)."""
        built = record.seconds.get("bench_build")
        if built:
            self.build_s[key] = max(built, self.build_s.get(key, 0.0))
        if record.seconds.get("device_loop") is not None:
            self.pool.learn(key, record.seconds)

    def _pays(self, thief: Lane, victim: str, through: list[list[int]]) -> bool:
        """Whether the thief would finish the last of `through` (the victim's queue up to that group)
        before the victim, which reaches it after its call in flight and the groups before it; the
        thief builds its bench data first, unless it was sent it ahead. A group's items weigh their
        task's seconds in the device loop (`DevicePool.item_s`), else the mean of the calls done so
        far; a build, the seconds the task's records gave, else any task's. A call that has run past
        its estimate is taken to need as long again. A group of a lane no longer alive is always
        taken, and before any call is done a group is taken. On two H100s (session 16) a lane took
        a group the other had built ahead, waited 7.3 s to build it again and ended 4.5 s after the
        other would have."""
        if self.pool._lane(victim) is None:
            return True  # nobody else will run it
        done = [st for st in self.stats.values() if st["items"]]
        if not done:
            return True
        mean = sum(st["busy_s"] for st in done) / sum(st["items"] for st in done)

        def seconds(positions: list[int]) -> float:
            return sum(self.pool.item_s.get(self.keys[i]) or mean for i in positions)

        now = time.perf_counter()
        estimate, elapsed = seconds(self.busy.get(victim, [])), now - self.call_began.get(victim, now)
        left_in_call = estimate - elapsed if elapsed < estimate else elapsed
        victim_done = left_in_call + sum(seconds(g) for g in through)
        group = through[-1]
        key = self.keys[group[0]]
        known = list(self.build_s.values())
        build = self.build_s.get(key, sum(known) / len(known) if known else 0.0)
        if key in self.pool.sent_before.get(thief.name, ()):
            build = 0.0  # sent in an earlier batch: built, and kept while it fits
        elif key in self.ahead.get(thief.name, set()):  # sent ahead: what is left of its build
            build = max(0.0, build - (now - self.sent_at.get((thief.name, key), now)))
        return build + seconds(group) < victim_done

    def _work(self, lane: Lane, positions: list[int]) -> None:
        began = time.perf_counter()
        try:
            out = lane.call(evaluate_batch, [self.items[i] for i in positions])
        except LaneDied as exc:
            self.events.put((lane, positions, None, exc, (began, time.perf_counter()), False))
        except BaseException as exc:  # a harness error: every item of the group carries it
            self.events.put((lane, positions, [exc] * len(positions), None, (began, time.perf_counter()), False))
        else:
            self.events.put((lane, positions, out, None, (began, time.perf_counter()), True))

    # ---- deaths ---------------------------------------------------------------------------------------
    def _lost(self, lane: Lane, running: list[int], died: LaneDied) -> None:
        self.pool.deaths.append(str(died))
        waiting = list(self.queues.pop(lane.name, ()))
        self.ahead.pop(lane.name, None)  # a lane started again has built nothing
        self.pool.sent_before.pop(lane.name, None)
        self.ran.pop(lane.name, None)
        self.likely = {key: name for key, name in self.likely.items() if name != lane.name}
        self.sent_at = {sent: at for sent, at in self.sent_at.items() if sent[0] != lane.name}
        retry: list[list[int]] = []
        for i in running:
            if len(running) == 1:
                self.alone.setdefault(i, []).append(lane.name)
            if len(self.alone.get(i, ())) >= self.pool.give_up_after:
                task, source, target = self.items[i]
                self.results[i] = lost_record(task, source, target, self.alone[i])
            else:
                retry.append([i])  # alone from now on: a candidate that kills its lane is then found
        self.pool.revive()  # a local lane starts again at once: a two-GPU host keeps both
        for positions in retry + waiting:
            self._requeue(positions, avoid=self.alone.get(positions[0], []) if len(positions) == 1 else [])

    def _requeue(self, positions: list[int], avoid: Sequence[str]) -> None:
        live = [lane for lane in self.pool._live() if lane.name not in avoid] or self.pool._live()
        if not live:
            return  # nothing left to run it: run() reports it as unfinished
        lane = min(
            live,
            key=lambda candidate: (
                sum(len(p) for p in self.queues.get(candidate.name, ())) + (candidate.name in self.busy),
                self.pool.lanes.index(candidate),
            ),
        )
        self.queues.setdefault(lane.name, deque()).append(positions)
