"""Budgets: what a search may spend, and what it spent.

A strategy spends **model generations** (one sample asked of the model, whatever comes back: code,
prose, or the offline policy's "no recorded step"). Two optional caps stop it earlier: **GPU-seconds**
(the sum of the evaluator's worker seconds over the evaluations the search asked for) and **tokens**
(prompt plus completion tokens of its generations). Every run reports all three, capped or not.

Caps are checked before each generation, so a run may overshoot the GPU-seconds and token caps by
at most one step. Spending is counted as recorded: an evaluation served from the run store counts
the worker seconds it took when it was measured, and a model call served from the call cache counts
the tokens it cost when it was made, so a resumed run takes exactly the decisions an uninterrupted
one would have. What this process really spent is reported beside it (`fresh_*`).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any


class BudgetExhausted(Exception):
    """Raised inside a strategy when it asks for a generation it cannot afford; ends the run."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class Budget:
    """Limits of one search run. `generations` is required; the two caps are optional."""

    generations: int
    gpu_seconds: float | None = None
    tokens: int | None = None

    def __post_init__(self) -> None:
        if self.generations < 0:
            raise ValueError(f"a budget needs generations >= 0, got {self.generations}")
        if self.gpu_seconds is not None and self.gpu_seconds <= 0:
            raise ValueError(f"gpu_seconds must be > 0 when given, got {self.gpu_seconds}")
        if self.tokens is not None and self.tokens <= 0:
            raise ValueError(f"tokens must be > 0 when given, got {self.tokens}")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Budget:
        return cls(int(d["generations"]), d.get("gpu_seconds"), d.get("tokens"))


@dataclass
class Spend:
    """What one run spent. `evaluations` counts distinct candidates the run had evaluated (a code seen
    twice is evaluated once); `evaluations_reused` of them came from the run store, not the evaluator."""

    generations: int = 0
    failed_generations: int = 0  # no code came back (parse failure, or no recorded step)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    gpu_seconds: float = 0.0
    evaluations: int = 0
    evaluations_reused: int = 0
    fresh_gpu_seconds: float = 0.0  # measured by this process (not served from the store)
    fresh_generations: int = 0  # asked of the model by this process (not served from the call cache)

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def exhausted(self, budget: Budget) -> str | None:
        """Why no further generation is allowed, or None."""
        if self.generations >= budget.generations:
            return f"generation budget spent ({self.generations} of {budget.generations})"
        if budget.gpu_seconds is not None and self.gpu_seconds >= budget.gpu_seconds:
            return f"GPU-second cap reached ({self.gpu_seconds:.1f} s of {budget.gpu_seconds:g} s)"
        if budget.tokens is not None and self.tokens >= budget.tokens:
            return f"token cap reached ({self.tokens} of {budget.tokens})"
        return None

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["tokens"] = self.tokens
        d["gpu_seconds"] = round(self.gpu_seconds, 4)
        d["fresh_gpu_seconds"] = round(self.fresh_gpu_seconds, 4)
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Spend:
        known = {k: d[k] for k in cls.__dataclass_fields__ if k in d}
        return cls(**known)

    def add(self, other: Spend) -> Spend:
        return Spend(
            **{
                k: getattr(self, k) + getattr(other, k)
                for k in self.__dataclass_fields__  # type: ignore[attr-defined]
            }
        )
