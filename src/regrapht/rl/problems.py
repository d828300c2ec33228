"""Problems for episodes: a task and one of its variants, drawn reproducibly from a seed.

Each task has a pool of `train_variants` training variants and `heldout_variants` held-out ones,
both fixed by (task, seed). A pool, rather than a fresh draw per episode, lets each variant's serial
baseline be timed once and kept (eval/serial_baselines.py) instead of once per episode. Held-out
variants never coincide with a training variant: their labels differ, and where the task has free
sizes their bench sizes differ from every training variant's too.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from regrapht.tasks.model import Task
from regrapht.tasks.variants import Variant, draw, size_signature

SPLITS = ("train", "heldout")
# Draw indices of held-out variants start here, far from any training pool's indices.
_HELDOUT_BASE = 1 << 30
_MAX_REJECTS = 1000


@dataclass(frozen=True)
class Problem:
    """One episode's problem. `variant.task` is what the evaluator receives."""

    task: Task  # as declared
    variant: Variant
    split: str

    @property
    def id(self) -> str:
        return self.variant.task.id

    def summary(self) -> dict[str, Any]:
        return {**self.variant.summary(), "split": self.split}


class ProblemSampler:
    """Draws problems from tasks under a seed: `sample(episode)` for training, `heldout()` for
    validation. The same seed, tasks and pool sizes give the same problems on every machine."""

    def __init__(self, tasks: Sequence[Task], seed: int = 0, train_variants: int = 16, heldout_variants: int = 4):
        if not tasks:
            raise ValueError("the sampler needs at least one task")
        ids = [t.id for t in tasks]
        if len(set(ids)) != len(ids):
            raise ValueError(f"duplicate task ids: {sorted({i for i in ids if ids.count(i) > 1})}")
        if train_variants < 1 or heldout_variants < 0:
            raise ValueError("train_variants must be at least 1 and heldout_variants at least 0")
        self.tasks = list(tasks)
        self.seed = seed
        self.train_variants = train_variants
        self.heldout_variants = heldout_variants
        self._train: dict[str, list[Variant]] = {}
        self._heldout: dict[str, list[Variant]] = {}

    def task(self, task_id: str) -> Task:
        for t in self.tasks:
            if t.id == task_id:
                return t
        raise KeyError(f"no task {task_id!r} in this environment")

    def train_pool(self, task: Task) -> list[Variant]:
        if task.id not in self._train:
            self._train[task.id] = [draw(task, self.seed, i) for i in range(self.train_variants)]
        return self._train[task.id]

    def heldout_pool(self, task: Task) -> list[Variant]:
        if task.id not in self._heldout:
            train = self.train_pool(task)
            taken_sizes = {size_signature(v) for v in train}
            taken_labels = {v.label for v in train}
            free = bool(task.variants.enabled and (task.variants.sizes or task.variants.dtypes))
            out: list[Variant] = []
            index, rejects = _HELDOUT_BASE, 0
            while len(out) < self.heldout_variants:
                v = draw(task, self.seed, index)
                index += 1
                sig = size_signature(v)
                if v.label in taken_labels or (free and sig in taken_sizes):
                    rejects += 1
                    if rejects > _MAX_REJECTS:
                        raise ValueError(
                            f"task {task.id}: its size ranges leave no held-out variant unlike the "
                            f"{len(train)} training ones; widen [variants] or ask for fewer"
                        )
                    continue
                taken_labels.add(v.label)
                taken_sizes.add(sig)
                out.append(v)
            self._heldout[task.id] = out
        return self._heldout[task.id]

    def sample(self, episode: int) -> Problem:
        """The training problem of an episode number: a task, then a variant from its pool."""
        key = hashlib.sha256(f"episode\0{self.seed}\0{episode}".encode()).digest()
        task = self.tasks[int.from_bytes(key[:8], "little") % len(self.tasks)]
        pool = self.train_pool(task)
        return Problem(task, pool[int.from_bytes(key[8:16], "little") % len(pool)], "train")

    def heldout(self) -> list[Problem]:
        """Every held-out problem, task by task."""
        return [Problem(t, v, "heldout") for t in self.tasks for v in self.heldout_pool(t)]

    def find(self, problem_id: str) -> Problem:
        """A problem by its id (`task@label`), from either split: how a remote caller names one."""
        base = problem_id.split("@", 1)[0]
        task = self.task(base)
        for split, pool in (("train", self.train_pool(task)), ("heldout", self.heldout_pool(task))):
            for v in pool:
                if v.task.id == problem_id:
                    return Problem(task, v, split)
        raise KeyError(f"no problem {problem_id!r} in this environment (seed {self.seed})")
