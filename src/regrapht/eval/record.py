"""The evaluation record: status ladder, per-case results, timings, speedups, reward, fingerprint."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

# The status ladder, worst first. integrity_violation ranks with wrong_answer: never rewarded.
STATUSES = ("compile_error", "runtime_error", "timeout", "wrong_answer", "integrity_violation", "correct")
RANK = {
    "compile_error": 0,
    "runtime_error": 1,
    "timeout": 2,
    "wrong_answer": 3,
    "integrity_violation": 3,
    "correct": 4,
}


@dataclass
class CaseResult:
    label: str
    sizes: dict[str, int]
    seed_index: int
    status: str
    message: str = ""
    max_abs_error: float = 0.0
    max_rel_error: float = 0.0


@dataclass
class Evaluation:
    task_id: str
    target: str
    status: str
    message: str
    candidate_sha256: str
    compile: dict[str, Any] = field(default_factory=dict)
    screen: list[dict[str, Any]] = field(default_factory=list)
    cases: list[CaseResult] = field(default_factory=list)
    integrity: list[str] = field(default_factory=list)
    timings: dict[str, dict[str, Any]] = field(default_factory=dict)
    speedups: dict[str, dict[str, Any]] = field(default_factory=dict)
    roofline: dict[str, Any] = field(default_factory=dict)
    reward: float | None = None
    reward_baseline: str = "serial"
    fingerprint: dict[str, Any] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)
    output_head: str = ""
    # The OS protections the candidate's worker ran under: {"landlock": ABI or None, "seccomp": bool,
    # "reason": why one is missing, or None}; empty when the candidate never ran.
    sandbox: dict[str, Any] = field(default_factory=dict)
    version: int = 1

    @property
    def correct(self) -> bool:
        return self.status == "correct"

    @property
    def rank(self) -> int:
        return RANK[self.status]

    def speedup(self, baseline: str) -> float | None:
        entry = self.speedups.get(baseline)
        return None if entry is None else float(entry["value"])

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent, default=float)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Evaluation:
        data = dict(data)
        data["cases"] = [CaseResult(**c) for c in data.get("cases", [])]
        return cls(**data)

    def verdict_signature(self) -> dict[str, Any]:
        """Everything about the verdict that does not depend on timing noise (batch == single)."""
        return {
            "status": self.status,
            "message": self.message if self.status != "correct" else "",
            "cases": [(c.label, c.status, c.message) for c in self.cases],
            "screen": self.screen,
        }


def hierarchical_reward(status: str, speedup: float | None) -> float | None:
    """ReGraphT Eq. 3: -1 unless every test passes; speedup - 1 when correct but slower; speedup when faster."""
    if status != "correct":
        return -1.0
    if speedup is None:
        return None
    return speedup - 1.0 if speedup < 1.0 else speedup
