"""Rewards: a number for a trainer, and the evidence behind it for its logs.

Every reward keeps the status ladder: any correct candidate scores above any failing one, whatever
its speed. Formulas are in docs/rl.md. Pointwise rewards look at one evaluation; group rewards
(ranked, group-normalized) look at a GRPO group together, so `score` always takes a whole group.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from regrapht.eval.record import Evaluation, hierarchical_reward

# The baselines a reward divides by. A serial-cpp task's records carry "serial" (always) and "naive"
# (cuda target, with a naive.cu); torch tasks are to carry "eager" and "compile" under the same keys
# of Evaluation.speedups, which is the whole hook: a baseline is a key of that dict.
BASELINES = ("serial", "naive", "eager", "compile", "max-autotune", "cudagraph")
BASELINE_SOURCES = {
    "serial": "the task's serial C++ reference",
    "naive": "the task's naive.cu (cuda target only)",
    "eager": "the PyTorch module run eagerly (torch tasks)",
    "compile": "the PyTorch module under torch.compile (torch tasks)",
    "max-autotune": "the PyTorch module under torch.compile in max-autotune-no-cudagraphs mode (torch tasks)",
    "cudagraph": "the PyTorch module run eagerly and replayed from a CUDA graph (torch tasks)",
}
# Statuses that are no verdict on the code (it was not run): reward 0, left out of group rewards.
NO_DEVICE = "no_device"
UNSCORED = (NO_DEVICE,)
REWARDS = ("hierarchical", "speedup", "log_speedup", "clipped", "ranked", "group_normalized", "correctness")
GROUP_REWARDS = ("ranked", "group_normalized")


class RewardConfigError(ValueError):
    """A reward or baseline that does not exist or does not fit the run."""


@dataclass(frozen=True)
class RewardConfig:
    """Which reward, against which baseline. `cap` bounds speedups for `clipped` and `log_speedup`
    (a 100x on a memory-bound task is more often a hole than a kernel); `clip_k` bounds the
    group-normalized score; `conservative` scores the lower end of the speedup's 95% interval, so
    timing noise is not rewarded."""

    name: str = "hierarchical"
    baseline: str = "serial"
    cap: float = 64.0
    clip_k: float = 3.0
    conservative: bool = False

    def __post_init__(self) -> None:
        if self.name not in REWARDS:
            raise RewardConfigError(f"unknown reward {self.name!r} (known: {', '.join(REWARDS)})")
        if self.baseline not in BASELINES:
            raise RewardConfigError(f"unknown baseline {self.baseline!r} (known: {', '.join(BASELINES)})")
        if not self.cap > 1.0 or not self.clip_k > 0:
            raise RewardConfigError(f"cap must be above 1 and clip_k above 0 (got {self.cap}, {self.clip_k})")

    @property
    def needs_timing(self) -> bool:
        return self.name != "correctness"


@dataclass
class Evidence:
    """Why a completion earned its reward, in plain data a trainer can log."""

    status: str  # the status ladder's, or "parse_error" when no code reached the evaluator
    message: str
    baseline: str
    speedup: dict[str, float] | None = None  # value, ci_low, ci_high against `baseline`
    integrity: list[str] = field(default_factory=list)
    screen: list[str] = field(default_factory=list)  # the screen findings' kinds
    parse: dict[str, Any] = field(default_factory=dict)  # rule and notes, or the failure's reason
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Reward:
    value: float
    name: str
    evidence: Evidence

    def to_dict(self) -> dict[str, Any]:
        return {"value": self.value, "name": self.name, "evidence": self.evidence.to_dict()}


MESSAGE_CHARS = 500


def evidence_of(ev: Evaluation | None, baseline: str, parse: dict[str, Any], parse_message: str = "") -> Evidence:
    """The evidence of one completion: its evaluation (None when its code could not be extracted)."""
    if ev is None:
        return Evidence("parse_error", parse_message[:MESSAGE_CHARS], baseline, parse=parse)
    entry = ev.speedups.get(baseline)
    speed = None
    if entry is not None:
        speed = {k: float(entry[k]) for k in ("value", "ci_low", "ci_high") if k in entry}
    notes = []
    if ev.correct and entry is None:
        notes.append(f"correct, but no speedup against {baseline!r} was measured: "
                     f"scored as correct and unmeasured (the record has {sorted(ev.speedups) or 'none'})")
    return Evidence(
        status=ev.status,
        message=ev.message[:MESSAGE_CHARS],
        baseline=baseline,
        speedup=speed,
        integrity=list(ev.integrity),
        screen=sorted({f"{f.get('rule')} ({f.get('severity')})" for f in ev.screen}),
        parse=parse,
        notes=notes,
    )


def _speed(e: Evidence, config: RewardConfig) -> float | None:
    if e.status != "correct" or e.speedup is None:
        return None
    return e.speedup["ci_low" if config.conservative else "value"]


def pointwise(e: Evidence, config: RewardConfig) -> float:
    """The reward of one completion (for the pointwise rewards)."""
    correct = e.status == "correct"
    x = _speed(e, config)
    if config.name == "correctness":
        return 1.0 if correct else 0.0
    if config.name == "hierarchical":
        if not correct:
            return -1.0
        value = hierarchical_reward("correct", x)
        return 0.0 if value is None else value
    if config.name in ("speedup", "group_normalized"):
        return 0.0 if not correct else (0.0 if x is None else x)
    if config.name == "clipped":
        return 0.0 if not correct else (0.0 if x is None else min(x, config.cap))
    if config.name in ("log_speedup", "ranked"):
        limit = math.log(config.cap)
        if not correct:
            return -limit - 1.0
        return 0.0 if x is None else max(-limit, min(limit, math.log(max(x, 1e-300))))
    raise RewardConfigError(config.name)


def score(evidence: Sequence[Evidence], config: RewardConfig) -> list[Reward]:
    """Rewards for a group of completions of one problem (a GRPO group)."""
    kept = [i for i, e in enumerate(evidence) if e.status not in UNSCORED]
    judged = [evidence[i] for i in kept]
    base = [pointwise(e, config) for e in judged]
    if config.name == "ranked":
        values = _ranked(judged, base)
    elif config.name == "group_normalized":
        values = _normalized(base, config.clip_k)
    else:
        values = base
    out = [0.0] * len(evidence)
    for i, v in zip(kept, values):
        out[i] = v
    return [Reward(float(v), config.name, e) for v, e in zip(out, evidence)]


def _ranked(evidence: Sequence[Evidence], log_speed: list[float]) -> list[float]:
    """Failures -1; correct completions (i / n_correct) by their rank i = 1..n in speed, ties sharing
    their mean rank, so the fastest correct one scores 1 whatever its speedup."""
    correct = [i for i, e in enumerate(evidence) if e.status == "correct"]
    out = [-1.0] * len(evidence)
    order = sorted(correct, key=lambda i: log_speed[i])
    pos = 0
    while pos < len(order):
        end = pos
        while end + 1 < len(order) and log_speed[order[end + 1]] == log_speed[order[pos]]:
            end += 1
        rank = (pos + end) / 2 + 1
        for j in order[pos : end + 1]:
            out[j] = rank / len(order)
        pos = end + 1
    return out


def _normalized(values: list[float], k: float) -> list[float]:
    """CUDA-L1's robust score: the group's speedup rewards standardized, then clipped to [-k, k]."""
    if len(values) < 2:
        return [0.0] * len(values)
    mean = sum(values) / len(values)
    std = math.sqrt(sum((v - mean) ** 2 for v in values) / len(values))
    if std == 0:
        return [0.0] * len(values)
    return [max(-k, min(k, (v - mean) / std)) for v in values]
