"""Lanes: an Evaluator in a process of its own, pinned to one GPU (or a CPU lane), and the calls it runs.

A lane's process sets CUDA_VISIBLE_DEVICES before anything in it can touch CUDA, so its evaluator, its
device judge and every candidate worker it starts see one GPU, as device 0. The parent sends a lane
functions of this module to run on its `LaneState` (pickled by reference) and gets their results
back; one call runs at a time, and `post` queues work that answers nothing (prefetch, release).

Lanes are executors behind the device pool (eval/pool.py): `LocalLane` here, `RayLane` in
eval/ray_pool.py. Both raise `LaneDied` when their process is gone, and nothing else about a death.
"""

from __future__ import annotations

import contextlib
import hashlib
import multiprocessing
import os
import pickle
import signal
import threading
from collections.abc import Callable
from typing import Any, Protocol

from regrapht.eval.config import EvalConfig
from regrapht.eval.devices import LaneSpec
from regrapht.eval.record import Evaluation
from regrapht.tasks import Task

Item = tuple[Task, str, str]  # (task, source, target), as Evaluator.evaluate_many takes them


class LaneDied(RuntimeError):
    """The lane's process (or its Ray node) is gone; whatever it was running has no result."""


class Lane(Protocol):
    name: str
    gpu: str | None  # the GPU it runs on, unique in its pool (a UUID, or node and index); None: a CPU lane

    @property
    def alive(self) -> bool: ...

    def call(self, fn: Callable[..., Any], *args: Any) -> Any: ...

    def post(self, fn: Callable[..., Any], *args: Any) -> None: ...

    def close(self) -> None: ...


class LaneState:
    """What lives in a lane's process: its spec and, once a call needs it, its Evaluator."""

    def __init__(self, spec: LaneSpec, config: EvalConfig) -> None:
        self.spec = spec
        self.config = config
        self._evaluator: Any = None
        # Records this lane returned since open_batch, in order (None for an item that failed with
        # its task's error): close_batch names a restated one by its place here.
        self._returned: list[Evaluation | None] | None = None

    @property
    def evaluator(self) -> Any:
        if self._evaluator is None:
            from regrapht.eval.evaluator import Evaluator

            self._evaluator = Evaluator(self.config)
        return self._evaluator

    def stamp(self, ev: Evaluation) -> Evaluation:
        ev.fingerprint.update(self.spec.fingerprint())
        return ev

    def returned(self, results: list[Evaluation | Exception]) -> None:
        if self._returned is not None:
            self._returned += [r if isinstance(r, Evaluation) else None for r in results]

    def close(self) -> None:
        if self._evaluator is not None:
            self._evaluator.close()
            self._evaluator = None


# ---- what lanes run (module-level, so they pickle by reference) --------------------------------------
def evaluate_batch(state: LaneState, items: list[Item]) -> list[Evaluation | Exception]:
    """The lane's share of a batch, through one evaluate_many (compiles side by side, bench data
    prefetched). A broken task fails only its own items: those get their exception in their place."""
    from regrapht.eval.evaluator import ReferenceError

    try:
        results: list[Evaluation | Exception] = list(state.evaluator.evaluate_many(items))
    except ReferenceError:
        results = []
        for task, source, target in items:
            try:
                results.append(state.evaluator.evaluate(task, source, target))
            except ReferenceError as exc:
                results.append(exc)
    out = [state.stamp(r) if isinstance(r, Evaluation) else r for r in results]
    state.returned(out)
    return out


def open_batch(state: LaneState) -> None:
    """A pool batch begins: the lane's calls until `close_batch` are one batch to its evaluator
    (`Evaluator.open_batch`), their serial baselines settled once, at the end. One left open by a
    batch that never closed (its driver raised) is closed first: batches never nest."""
    if state._returned is not None:
        state.evaluator.close_batch()
    state.evaluator.open_batch()
    state._returned = []


def close_batch(
    state: LaneState, settle_cores: list[int] | None = None, slots: dict | None = None
) -> list[tuple[int, Evaluation]]:
    """The pool batch is done: settle the lane's serial baselines (`Evaluator.close_batch`; on
    `settle_cores` where the pool gives them, with the batch's `slots` where lanes settle at once).
    Returns each restated record with its place among the records the lane returned since
    `open_batch`, so the pool can put it where the first copy went."""
    restated = {id(r) for r in state.evaluator.close_batch(settle_cores, slots)}
    returned, state._returned = state._returned or [], None
    return [(i, state.stamp(r)) for i, r in enumerate(returned) if r is not None and id(r) in restated]


def evaluate_one(state: LaneState, task: Task, source: str, target: str, baselines: dict[str, str]) -> Evaluation:
    return state.stamp(state.evaluator.evaluate(task, source, target, baselines))


def warm(state: LaneState, items: list[Item]) -> None:
    """Start the compiles of items the lane will run next (candidates and their baselines), on its
    compile pool: the call that runs them then finds them built or joins them in flight. Nothing is
    judged here; an item whose preparation fails fails again, with its record, in that call."""
    for task, source, target in items:
        if getattr(task, "kind", None) == "torch":
            continue  # torch candidates are built inside their own judge's run
        with contextlib.suppress(Exception):
            state.evaluator.prepare(task, source, target, {})


def prefetch(state: LaneState, tasks: list[Task], threads: int) -> None:
    state.evaluator.prefetch(tasks, threads)


def release(state: LaneState, task: Task) -> None:
    state.evaluator.release(task)


def lane_pid(state: LaneState) -> int:
    return os.getpid()


def task_key(task: Task) -> str:
    """One key per task definition: the same folder edited is another task for the lanes."""
    return hashlib.sha1(f"{task.instance_key}@{task.content_hash()}".encode()).hexdigest()[:16]


# ---- a lane in a local process -----------------------------------------------------------------------
def _sendable(exc: BaseException) -> BaseException:
    try:
        pickle.dumps(exc)
        return exc
    except Exception:  # an exception that does not pickle still reports what it was
        return RuntimeError(f"{type(exc).__name__}: {exc}")


def _serve(conn: Any, spec: LaneSpec, config: EvalConfig) -> None:
    os.environ.update(spec.environment())  # before anything here can touch CUDA
    if spec.cores:
        # Inherited by every process the lane starts: compiles, reference runs, candidate workers.
        with contextlib.suppress(AttributeError, OSError):
            os.sched_setaffinity(0, spec.cores)
    from regrapht.eval import toolchain

    toolchain.gpus.cache_clear()
    toolchain.cuda_arch()  # the pinned GPU's, unless REGRAPHT_CUDA_ARCH says otherwise
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle; it closes lanes
    state = LaneState(spec, config)
    try:
        while True:
            try:
                kind, fn, args = conn.recv()
            except (EOFError, OSError):
                break
            if kind == "close":
                break
            try:
                reply = ("ok", fn(state, *args))
            except Exception as exc:
                reply = ("error", _sendable(exc))
            if kind == "call":
                conn.send(reply)
    finally:
        state.close()


class LocalLane:
    """A lane in a child process of this one (started with spawn: the parent may hold threads)."""

    def __init__(self, spec: LaneSpec, config: EvalConfig) -> None:
        self.spec = spec
        self.name = spec.name
        self.machine = f"gpu:{spec.gpu.name}" if spec.gpu is not None else None  # None: this host's CPU
        self.gpu = spec.device
        ctx = multiprocessing.get_context("spawn")
        self._conn, child = ctx.Pipe()
        self.process = ctx.Process(
            target=_serve, args=(child, spec, config), name=f"regrapht-lane-{spec.name}", daemon=True
        )
        self.process.start()
        child.close()  # only the child holds its end: its death is then an EOF here
        self._call_lock = threading.Lock()
        self._send_lock = threading.Lock()
        self._dead: str | None = None

    @property
    def alive(self) -> bool:
        return self._dead is None and self.process.is_alive()

    @property
    def pid(self) -> int | None:
        return self.process.pid

    @property
    def busy(self) -> bool:
        """A call is in flight."""
        return self._call_lock.locked()

    def _died(self, during: str) -> LaneDied:
        self.process.join(timeout=5)
        code = self.process.exitcode
        how = (
            "is still running but stopped answering"
            if code is None
            else f"was killed by signal {-code}"
            if code < 0
            else f"exited with status {code}"
        )
        self._dead = f"lane {self.name}: its process (pid {self.process.pid}) {how} during {during}"
        return LaneDied(self._dead)

    def call(self, fn: Callable[..., Any], *args: Any) -> Any:
        with self._call_lock:
            if self._dead is not None:
                raise LaneDied(self._dead)
            try:
                with self._send_lock:
                    self._conn.send(("call", fn, args))
                status, value = self._conn.recv()
            except (EOFError, OSError) as exc:
                raise self._died(fn.__name__) from exc
        if status == "error":
            raise value
        return value

    def post(self, fn: Callable[..., Any], *args: Any) -> None:
        if self._dead is not None:
            return
        try:
            with self._send_lock:
                self._conn.send(("post", fn, args))
        except OSError:
            pass  # a dead lane is found by its next call

    def close(self) -> None:
        if self.process.is_alive() and self.busy:
            # Interrupted mid-call (Ctrl-C): the lane would read "close" only once its call ends. Its
            # scratch folder is swept by the next evaluator on this host (eval/evaluator.py).
            self.process.terminate()
        elif self.process.is_alive():
            try:
                with self._send_lock:
                    self._conn.send(("close", None, ()))
            except OSError:
                pass
        self.process.join(timeout=30)
        if self.process.is_alive():
            self.process.kill()
            self.process.join(timeout=5)
        self._conn.close()
        self._dead = self._dead or f"lane {self.name}: closed"
