"""How close two tasks' code is: the train-to-test leakage screen of `tasks check`.

A token screen, not a semantic one: it finds a test task whose serial reference and naive port are
a train task's with a changed index or an added epilogue, the copies a search that retrieves train
examples would score on. Two tasks that solve one problem in unrelated code pass it; curating the
suite still takes a reader.
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path

from regrapht.tasks.model import Task

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

_TOKEN = re.compile(
    r"[A-Za-z_]\w*"  # names and keywords
    r"|(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?[fFuUlL]*"  # numbers
    r"|->|<<|>>|&&|\|\||\+\+|--|[+\-*/%=<>!&|^]=?"  # operators
    r"|[{}()\[\];,.?:~]"
)
_BLOCK_COMMENT = re.compile(r"/\*.*?\*/", re.S)
_LINE_COMMENT = re.compile(r"//[^\n]*")
_STRING = re.compile(r'"(?:\\.|[^"\\])*"')
_PREPROCESSOR = re.compile(r"^\s*#.*$", re.M)


# The splits whose tasks' code can reach a search through a Reasoning Graph's worked examples: a test
# task is screened against all of them (the shipped graphs are built from train and example tasks).
GRAPH_SPLITS = ("train", "example")


@dataclass(frozen=True)
class LeakageRule:
    ngram: int
    threshold: float


@lru_cache(maxsize=1)
def leakage_rule() -> LeakageRule:
    text = resources.files("regrapht").joinpath("data/leakage.toml").read_text()
    data = tomllib.loads(text)
    return LeakageRule(ngram=int(data["ngram"]), threshold=float(data["threshold"]))


def tokens(source: str) -> list[str]:
    """The code's tokens with comments, strings and preprocessor lines dropped and numbers folded (a
    changed constant is not a different kernel); names are kept, since copied code keeps them."""
    text = _PREPROCESSOR.sub(" ", _STRING.sub(" STR ", _LINE_COMMENT.sub(" ", _BLOCK_COMMENT.sub(" ", source))))
    return ["NUM" if t[0].isdigit() or t[0] == "." and len(t) > 1 else t for t in _TOKEN.findall(text)]


def shingles(source: str, n: int) -> Counter:
    toks = tokens(source)
    if len(toks) < n:
        return Counter([tuple(toks)]) if toks else Counter()
    return Counter(tuple(toks[i : i + n]) for i in range(len(toks) - n + 1))


def jaccard(a: Counter, b: Counter) -> float:
    """Multiset Jaccard similarity: shared n-grams over all n-grams, counts included."""
    union = sum((a | b).values())
    return sum((a & b).values()) / union if union else 0.0


@dataclass(frozen=True)
class Similarity:
    other: str  # the other task's id
    serial: float
    naive: float

    @property
    def score(self) -> float:
        return (self.serial + self.naive) / 2

    def describe(self) -> str:
        return f"{self.other} (token similarity {self.score:.2f}: serial {self.serial:.2f}, naive {self.naive:.2f})"


class Fingerprint:
    """A task's n-gram multisets, computed once and compared with many."""

    def __init__(self, task_id: str, serial: Counter, naive: Counter):
        self.task_id = task_id
        self.serial = serial
        self.naive = naive

    def compare(self, other: Fingerprint) -> Similarity:
        return Similarity(other.task_id, jaccard(self.serial, other.serial), jaccard(self.naive, other.naive))


def _fingerprint(task: Task, n: int) -> Fingerprint:
    """A task's fingerprint, made once per run and file version: `tasks check` compares every test
    task with every train task, and shingling the train tasks again for each would be the bulk of it."""
    stamps = tuple(_stamp(path) for path in (task.serial_path, task.naive_path))
    return _cached_fingerprint(task.id, task.serial_path, task.naive_path, stamps, n)


def _stamp(path: Path | None) -> tuple[int, int] | None:
    if path is None or not path.is_file():
        return None
    stat = path.stat()
    return stat.st_mtime_ns, stat.st_size


@lru_cache(maxsize=1024)
def _cached_fingerprint(
    task_id: str, serial: Path, naive: Path | None, stamps: tuple[object, ...], n: int
) -> Fingerprint:
    return Fingerprint(task_id, shingles(_read(serial), n), shingles(_read(naive), n))


def _read(path: Path | None) -> str:
    return path.read_text(errors="replace") if path is not None and path.is_file() else ""


def nearest(task: Task, others: list[Task], rule: LeakageRule | None = None) -> Similarity | None:
    """The most similar of `others` to `task` (itself excluded), or None when there is none."""
    rule = rule or leakage_rule()
    mine = _fingerprint(task, rule.ngram)
    scored = [mine.compare(_fingerprint(o, rule.ngram)) for o in others if o.id != task.id]
    return max(scored, key=lambda s: s.score, default=None)


def leakage_problem(task: Task, train: list[Task], rule: LeakageRule | None = None) -> tuple[str | None, Similarity | None]:
    """Why a test task fails the leakage screen (None when it passes), and its nearest task among
    `train`'s tasks of the splits a Reasoning Graph is built from (train and example)."""
    rule = rule or leakage_rule()
    if task.split != "test":
        return None, None
    on_graph = [t for t in train if t.split in GRAPH_SPLITS]
    near = nearest(task, on_graph, rule)
    if near is None or near.score < rule.threshold:
        return None, near
    split = next(t.split for t in on_graph if t.id == near.other)
    return (
        f"near-duplicate of {split} task {near.describe()} >= {rule.threshold:.2f}: a search that retrieves "
        "the graph's examples would score on a copy; replace the task or move it to train",
        near,
    )
