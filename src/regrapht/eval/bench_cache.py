"""The bench-reference cache: each task's bench-size data (input sets on disk, expected outputs in
memory, the serial baseline) built once, by the first caller or ahead of time on prefetch threads,
and kept after release while the retained data fits its budget (least recently released first out).
The build itself is the caller's (`build`); this module decides when builds run and what stays."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from regrapht.eval.reference import bench_bytes
from regrapht.tasks import Task


def build_order(tasks: list[Task], input_sets: int) -> list[Task]:
    """The order to build bench data in, from both ends of the size ranking in turn: the cheapest
    (the device gets work soonest), the largest (the longest builds overlap the most device work),
    the next cheapest, the next largest... With several build threads, small tasks keep arriving
    for the device while the large ones are built beside them."""
    ranked = sorted(tasks, key=lambda t: bench_bytes(t, input_sets))
    order = []
    while ranked:
        order.append(ranked.pop(0))
        if ranked:
            order.append(ranked.pop())
    return order


class BenchCache:
    """Bench data by task. `build(task)` makes a task's data (a BenchReference: `held_bytes` is what it
    holds); `key(task)` names it (one key per task version); `size(task)` says, before a build, how
    many bytes it will hold; `cap_bytes` bounds the data built ahead and retained; `on_drop` receives
    the data of a task dropped from the cache, to free what it holds outside memory. `cap_bytes` and
    `input_sets` may be callables, read at each use."""

    def __init__(
        self,
        build: Callable[[Task], Any],
        key: Callable[[Task], str],
        size: Callable[[Task], int],
        cap_bytes: int | Callable[[], int],
        input_sets: int | Callable[[], int],
        on_drop: Callable[[Any], None] | None = None,
    ):
        self.build, self.key, self.size, self.on_drop = build, key, size, on_drop
        # Read at each use where given as callables: a caller may change its configuration later.
        self._cap = cap_bytes if callable(cap_bytes) else lambda: cap_bytes
        self._input_sets = input_sets if callable(input_sets) else lambda: input_sets
        self._benches: dict[str, Future] = {}
        self._lock = threading.Condition()
        self._prefetcher: ThreadPoolExecutor | None = None
        self._prefetched: dict[str, int] = {}  # built ahead and not yet released: key -> bytes it holds
        self._released: set[str] = set()
        self._idle: OrderedDict[str, int] = OrderedDict()  # released, retained: key -> bytes held
        self.lookahead = 2  # tasks built ahead of those released, whatever their size
        self._own_builds: list[threading.Thread] = []  # build_now's threads, joined by close
        self._closing = False

    def close(self) -> None:
        """Stop building ahead: waiting builds give up, queued ones are cancelled, running ones end."""
        with self._lock:
            self._closing = True
            self._lock.notify_all()
        if self._prefetcher is not None:
            self._prefetcher.shutdown(wait=True, cancel_futures=True)
        for thread in self._own_builds:  # build_now's: their data's folders go with the evaluator
            thread.join()

    def future(self, task: Task) -> Future | None:
        """The task's build, done or under way; None when it is neither built nor being built."""
        with self._lock:
            return self._benches.get(self.key(task))

    def get(self, task: Task) -> Any:
        """The task's bench data, built once: by the first caller, or by a prefetch thread (then waited
        for). A failed build raises its error in every caller."""
        key = self.key(task)
        with self._lock:
            future = self._benches.get(key)
            self._idle.pop(key, None)  # in use again: not to be evicted
            owner = future is None
            if owner:
                future = self._benches[key] = Future()
        if owner:
            self._build_into(future, task)
        return future.result()

    def _build_into(self, future: Future, task: Task) -> None:
        try:
            future.set_result(self.build(task))
        except BaseException as exc:  # handed to every waiter, not swallowed
            future.set_exception(exc)

    def build_now(self, task: Task) -> Future:
        """The task's build, started now on a thread of its own if neither built nor being built (the
        cap does not hold it back: a worker needing the data would build it anyway, holding its
        device meanwhile). The future is registered before this returns, so a caller may wait on it."""
        key = self.key(task)
        with self._lock:
            future = self._benches.get(key)
            if future is not None:
                return future
            future = Future()
            if self._closing:  # not registered: nothing is built once the cache closes
                future.set_exception(RuntimeError("the bench-data cache is closing"))
                return future
            self._benches[key] = future
        thread = threading.Thread(target=self._build_into, args=(future, task), name="regrapht-reference-now", daemon=True)
        try:
            thread.start()
        except RuntimeError as exc:  # no thread to be had: a pending future would be waited on forever
            with self._lock:
                self._benches.pop(key, None)
            future.set_exception(exc)
            return future
        with self._lock:
            self._own_builds = [t for t in self._own_builds if t.is_alive()] + [thread]
        return future

    def prefetch(self, tasks: list[Task], threads: int = 1) -> None:
        """Build bench data in the background: `threads + 1` tasks ahead of those released so far, and
        more while their data fits `cap_bytes` beside the retained data, in `build_order`."""
        if self._prefetcher is None:
            self._prefetcher = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="regrapht-reference")
            self.lookahead = threads + 1
        batch = list({t.instance_key: t for t in tasks}.values())
        with self._lock:
            for task in batch:
                self._released.discard(self.key(task))  # needed again: may be built ahead again
        for task in build_order(batch, self._input_sets()):
            self._prefetcher.submit(self.build_ahead, task)

    def build_ahead(self, task: Task) -> None:
        """Build one task's data ahead of its use (what prefetch threads run): at once while fewer
        than `lookahead` builds are ahead or all fit the cap, else once room is made; not at all when
        it is built, being built, released meanwhile, or the cache closes."""
        key = self.key(task)
        size = self.size(task)
        with self._lock:
            while True:
                if self._closing or key in self._released or key in self._benches:
                    return  # kept or built already, being built by a candidate that needed it, or not needed
                if (
                    len(self._prefetched) < self.lookahead
                    or sum(self._prefetched.values()) + sum(self._idle.values()) + size <= self._cap()
                ):
                    break
                self._lock.wait(timeout=1.0)
            self._prefetched[key] = size
        self.get(task)

    def release(self, task: Task) -> None:
        """Say that no candidate queued now needs a task's bench data. The data stays while the
        retained data of released tasks fits `cap_bytes` (the least recently released go first), so
        a search that evaluates a task batch after batch builds it, and times its serial baseline,
        once. Data still being built is dropped when its build ends."""
        key = self.key(task)
        dropped: list[Future] = []
        with self._lock:
            future = self._benches.get(key)
            self._released.add(key)
            self._prefetched.pop(key, None)
            if future is not None and future.done() and future.exception() is None:
                self._idle.pop(key, None)
                self._idle[key] = future.result().held_bytes
                dropped = self._evict_locked()
            elif future is not None:
                dropped = [self._benches.pop(key)]
            self._lock.notify_all()
        for gone in dropped:
            gone.add_done_callback(self._dropped)

    def _dropped(self, future: Future) -> None:
        if future.exception() is None and self.on_drop is not None:
            self.on_drop(future.result())

    def _evict_locked(self) -> list[Future]:
        dropped, cap = [], self._cap()
        while self._idle and sum(self._idle.values()) > cap:
            key, _ = self._idle.popitem(last=False)
            dropped.append(self._benches.pop(key))
        return dropped
