"""Evaluating candidates for searches: the real evaluator behind a store-backed cache.

`EvalService` hands batches of candidates to `Evaluator.evaluate_many` (compiles run in parallel on
the CPU pool, runs stay one at a time on the device) in chunks of the compile pool's size, and writes
each chunk's records to the run store as soon as it is done, so an interrupted search loses at most
one chunk of evaluations. A candidate already in the store for this task, target, evaluator
configuration and machine is not evaluated again.

Anything with an `evaluate_many(requests) -> list[EvalOutcome]` and `machine(target)` can stand in
for it (tests put an evaluator with known rewards there, at the same boundary).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from regrapht.eval import devices
from regrapht.eval.evaluator import Evaluator, ReferenceError
from regrapht.eval.record import Evaluation
from regrapht.search.record import code_hash
from regrapht.search.store import SearchStore, config_hash, evaluation_key
from regrapht.tasks import Task


@dataclass(frozen=True)
class EvalRequest:
    task: Task
    source: str
    target: str


@dataclass
class EvalOutcome:
    """The evaluation of one request; `error` is set instead when the task itself is broken."""

    evaluation: Evaluation | None
    key: str
    reused: bool = False  # served from the run store
    error: Exception | None = None


class EvalBackend(Protocol):
    def evaluate_many(self, requests: Sequence[EvalRequest]) -> list[EvalOutcome]: ...

    def machine(self, target: str) -> str: ...


def machine_name(target: str) -> str:
    """What an evaluation must have been measured on to be reused: the GPU (cuda) or the CPU (cpu)."""
    return devices.machine_name(target)


class EvalService:
    """The evaluator with a cache in the run store (or in memory when no store is given)."""

    def __init__(
        self,
        evaluator: Evaluator,
        store: SearchStore | None = None,
        chunk: int | None = None,
        machines: dict[str, str] | None = None,
    ) -> None:
        """`machines` replays: for each target it names, evaluations are read from the store under
        that machine's name, and a miss raises LookupError instead of measuring here (which would
        file this machine's timings under another's name)."""
        self.evaluator = evaluator
        self.store = store
        # one chunk keeps the compile pool busy; its records are stored before the next chunk starts
        # (a device pool says its own: enough for every lane's compile pool)
        self.chunk = max(
            1,
            chunk
            or getattr(evaluator, "batch_size", 0)
            or getattr(getattr(evaluator, "compiler", None), "jobs", 0)
            or os.cpu_count()
            or 1,
        )
        self.config_hash = config_hash(evaluator.config)
        self._task_hash: dict[str, str] = {}
        self._memory: dict[str, Evaluation] = {}
        self._machines: dict[str, str] = dict(machines or {})
        self._replayed = frozenset(self._machines)
        self.fresh = 0  # evaluations this service ran
        self.reused = 0  # evaluations it served from the store or memory

    def machine(self, target: str) -> str:
        if target not in self._machines:
            # A pool's lanes may run elsewhere (Ray): it names the machine they measure on.
            own = getattr(self.evaluator, "machine", None)
            self._machines[target] = own(target) if callable(own) else machine_name(target)
        return self._machines[target]

    def _hash_of(self, task: Task) -> str:
        key = str(task.root)
        if key not in self._task_hash:
            self._task_hash[key] = task.content_hash()
        return self._task_hash[key]

    def key(self, request: EvalRequest) -> str:
        return evaluation_key(
            self._hash_of(request.task),
            request.target,
            code_hash(request.source),
            self.config_hash,
            self.machine(request.target),
        )

    def lookup(self, key: str) -> Evaluation | None:
        if key in self._memory:
            return self._memory[key]
        if self.store is not None:
            found = self.store.evaluation(key)
            if found is not None:
                self._memory[key] = found
            return found
        return None

    def evaluate_many(self, requests: Sequence[EvalRequest]) -> list[EvalOutcome]:
        keys = [self.key(r) for r in requests]
        outcomes: dict[str, EvalOutcome] = {}
        todo: list[tuple[str, EvalRequest]] = []
        queued: set[str] = set()
        for key, request in zip(keys, requests):
            if key in outcomes or key in queued:
                continue
            found = self.lookup(key)
            if found is not None:
                outcomes[key] = EvalOutcome(found, key, reused=True)
                self.reused += 1
            else:
                todo.append((key, request))
                queued.add(key)
        replayed = [r for _, r in todo if r.target in self._replayed]
        if replayed:
            raise LookupError(
                f"replaying {self._machines[replayed[0].target]!r}: no stored evaluation for "
                f"{len(replayed)} request(s) (first: task {replayed[0].task.id})"
            )
        for start in range(0, len(todo), self.chunk):
            part = todo[start : start + self.chunk]
            for (key, _), outcome in zip(part, self._run_chunk(part)):
                outcomes[key] = outcome
        return [outcomes[k] for k in keys]

    def _run_chunk(self, part: list[tuple[str, EvalRequest]]) -> list[EvalOutcome]:
        items = [(r.task, r.source, r.target) for _, r in part]
        try:
            evaluations = self.evaluator.evaluate_many(items)
        except ReferenceError:
            # one task of the chunk is broken: evaluate one by one so only its requests fail
            return [self._run_one(key, request) for key, request in part]
        return [self._record(key, request, ev) for (key, request), ev in zip(part, evaluations)]

    def _run_one(self, key: str, request: EvalRequest) -> EvalOutcome:
        try:
            ev = self.evaluator.evaluate(request.task, request.source, request.target)
        except ReferenceError as exc:
            return EvalOutcome(None, key, error=exc)
        return self._record(key, request, ev)

    def _record(self, key: str, request: EvalRequest, ev: Evaluation) -> EvalOutcome:
        self.fresh += 1
        self._memory[key] = ev
        if self.store is not None:
            self.store.put_evaluation(
                key,
                task_id=request.task.id,
                task_hash=self._hash_of(request.task),
                target=request.target,
                cfg_hash=self.config_hash,
                machine=self.machine(request.target),
                source=request.source,
                evaluation=ev,
            )
        return EvalOutcome(ev, key, reused=False)
