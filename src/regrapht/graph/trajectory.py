"""Trajectories: step-by-step optimizations of one task, and the authored JSONL format.

One trajectory per line (see docs/graph-format.md):

    {"task": "vector_add", "target": "cuda", "start": "serial", "author": "alice",
     "notes": "optional", "steps": [{"think": "...", "method": "...", "detail": "...", "code": "..."}]}

`start` says where the code of step 0's `before` comes from: "serial" (the task's reference
implementation), "naive" (the task's naive.cu) or {"code": "..."} (given inline).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

from regrapht.graph.model import GRAPH_TARGETS

START_KINDS = ("serial", "naive")
STEP_KEYS = ("think", "method", "detail", "code")
OPTIONAL_STEP_KEYS = ("expect_failure",)


class TrajectoryFormatError(ValueError):
    """A trajectory record is malformed; the message says which line and field."""


@dataclass(frozen=True)
class ExpectedFailure:
    """A step recorded on purpose as a failed attempt: its kind (data/failure_kinds.toml) and
    what goes wrong, in the author's words."""

    kind: str
    why: str

    def to_dict(self) -> dict[str, str]:
        return {"kind": self.kind, "why": self.why}


@dataclass(frozen=True)
class Step:
    think: str
    method: str
    detail: str
    code: str
    expect_failure: ExpectedFailure | None = None

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"think": self.think, "method": self.method, "detail": self.detail, "code": self.code}
        if self.expect_failure is not None:
            d["expect_failure"] = self.expect_failure.to_dict()
        return d


@dataclass(frozen=True)
class Trajectory:
    task: str
    target: str
    start: str | dict[str, str]  # "serial" | "naive" | {"code": "..."}
    steps: tuple[Step, ...]
    author: str = ""
    notes: str = ""

    @property
    def start_code(self) -> str | None:
        """The inline starting code, or None when it comes from the task folder."""
        return self.start["code"] if isinstance(self.start, dict) else None

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "task": self.task,
            "target": self.target,
            "start": self.start,
            "author": self.author,
            "steps": [s.to_dict() for s in self.steps],
        }
        if self.notes:
            d["notes"] = self.notes
        return d

    @property
    def hash(self) -> str:
        """Content hash (sha256 hex) over task, target, start, author and steps; notes excluded, so
        annotating a trajectory does not make it new."""
        d = self.to_dict()
        d.pop("notes", None)
        blob = json.dumps(d, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def parse_trajectory(obj: Any, where: str = "trajectory") -> Trajectory:
    """Check and convert one decoded JSON record."""
    if not isinstance(obj, dict):
        raise TrajectoryFormatError(f"{where}: a trajectory is a JSON object, got {type(obj).__name__}")
    unknown = set(obj) - {"task", "target", "start", "steps", "author", "notes"}
    if unknown:
        raise TrajectoryFormatError(f"{where}: unknown keys {sorted(unknown)}")
    for key in ("task", "target"):
        if not isinstance(obj.get(key), str) or not obj[key].strip():
            raise TrajectoryFormatError(f"{where}: {key!r} must be a non-empty string")
    if obj["target"] not in GRAPH_TARGETS:
        raise TrajectoryFormatError(
            f"{where}: target must be one of {list(GRAPH_TARGETS)}, got {obj['target']!r}"
        )
    start = obj.get("start", "serial")
    if isinstance(start, dict):
        if set(start) != {"code"} or not isinstance(start["code"], str) or not start["code"].strip():
            raise TrajectoryFormatError(f'{where}: start as an object must be {{"code": "<source>"}}')
    elif start not in START_KINDS:
        raise TrajectoryFormatError(
            f'{where}: start must be "serial", "naive" or {{"code": ...}}, got {start!r}'
        )
    for key in ("author", "notes"):
        if key in obj and not isinstance(obj[key], str):
            raise TrajectoryFormatError(f"{where}: {key!r} must be a string")
    steps = obj.get("steps")
    if not isinstance(steps, list) or not steps:
        raise TrajectoryFormatError(f"{where}: 'steps' must be a non-empty list")
    parsed = []
    for i, s in enumerate(steps):
        spath = f"{where}: steps[{i}]"
        if not isinstance(s, dict):
            raise TrajectoryFormatError(f"{spath} must be an object")
        missing = [k for k in STEP_KEYS if k not in s]
        if missing:
            raise TrajectoryFormatError(f"{spath} is missing {missing}")
        extra = set(s) - set(STEP_KEYS) - set(OPTIONAL_STEP_KEYS)
        if extra:
            raise TrajectoryFormatError(f"{spath} has unknown keys {sorted(extra)}")
        for k in STEP_KEYS:
            if not isinstance(s[k], str):
                raise TrajectoryFormatError(f"{spath}.{k} must be a string")
        if not s["method"].strip():
            raise TrajectoryFormatError(f"{spath}.method must name a method")
        if not s["code"].strip():
            raise TrajectoryFormatError(f"{spath}.code is empty")
        expected = None
        if "expect_failure" in s:
            if i != len(steps) - 1:
                raise TrajectoryFormatError(
                    f"{spath}.expect_failure: only a trajectory's last step may be an expected failure"
                )
            expected = _parse_expected_failure(s["expect_failure"], f"{spath}.expect_failure")
        parsed.append(Step(s["think"], s["method"].strip(), s["detail"], s["code"], expected))
    return Trajectory(
        task=obj["task"].strip(),
        target=obj["target"],
        start=start,
        steps=tuple(parsed),
        author=obj.get("author", ""),
        notes=obj.get("notes", ""),
    )


def failure_kinds() -> dict[str, dict[str, str]]:
    """The kinds of failed attempts a trajectory may record (data/failure_kinds.toml)."""
    return dict(_failure_kinds())


@lru_cache(maxsize=1)
def _failure_kinds() -> dict[str, dict[str, str]]:
    text = resources.files("regrapht.data").joinpath("failure_kinds.toml").read_text(encoding="utf-8")
    return tomllib.loads(text)


def _parse_expected_failure(obj: Any, where: str) -> ExpectedFailure:
    if not isinstance(obj, dict) or set(obj) != {"kind", "why"}:
        raise TrajectoryFormatError(f'{where} must be {{"kind": "...", "why": "..."}}')
    kinds = _failure_kinds()
    if obj["kind"] not in kinds:
        raise TrajectoryFormatError(f"{where}.kind must be one of {sorted(kinds)}, got {obj['kind']!r}")
    if not isinstance(obj["why"], str) or not obj["why"].strip():
        raise TrajectoryFormatError(f"{where}.why must say what goes wrong")
    return ExpectedFailure(obj["kind"], obj["why"].strip())


def read_trajectories(path: str | Path) -> Iterator[tuple[int, Trajectory]]:
    """Yield (line number, trajectory) for each non-blank line; raises TrajectoryFormatError naming
    the file and line of the first bad record."""
    p = Path(path)
    with p.open(encoding="utf-8") as f:
        for lineno, line in enumerate(f, start=1):
            if not line.strip():
                continue
            where = f"{p}:{lineno}"
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as exc:
                raise TrajectoryFormatError(
                    f"{where}: not valid JSON: {exc.msg} (column {exc.colno})"
                ) from exc
            yield lineno, parse_trajectory(obj, where)


def write_trajectories(trajectories: list[Trajectory], path: str | Path) -> None:
    with Path(path).open("w", encoding="utf-8") as f:
        for t in trajectories:
            f.write(json.dumps(t.to_dict(), ensure_ascii=False) + "\n")
