"""Measured tiers: a test task's difficulty derived from what its best-known solution is seen to do
beyond naive.cu and, where a GPU check measured it, how much that gains, instead of the count of
labels on solution.cu's first line.

The rule and its numbers are data (regrapht/data/tiers.toml, which says why each number); in short:
1. a declared step counts when the method recognizer (graph/recognize.py) finds it in solution.cu
   but not in naive.cu, or when the recognizer has no static signal for it (taken on trust, listed);
   a step that names no method of the taxonomy never counts, and fails the check;
2. the counted steps give the step tier (easy 0-2, medium 3-5, hard 6+);
3. measured headroom caps it: best/naive under 2x cannot be hard, under 1.25x is easy, and a naive.cu
   already at 80% of the roofline floor makes the task easy.

`regrapht tasks check` fails a test task whose declared difficulty is not its measured tier. This
lives in bench/ because it joins the evaluator's measurements with the graph's recognizer, which
eval/ must not import.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Collection
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Any

from regrapht.eval.suitecheck import TaskCheck, solution_steps
from regrapht.graph.recognize import recognizable, recognize
from regrapht.graph.taxonomy import default_taxonomy
from regrapht.tasks import Task

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

TIERS = ("easy", "medium", "hard")


class TierRuleError(ValueError):
    """tiers.toml is malformed; the message names the field."""


@dataclass(frozen=True)
class TierRule:
    least_steps: dict[str, int]  # the least number of counted steps for each tier
    headroom_medium: float  # the least best/naive a task above easy needs
    headroom_hard: float  # the least best/naive a hard task needs
    naive_at_floor: float  # naive.cu's fraction of the roofline floor that makes a task easy

    def step_tier(self, count: int) -> str:
        return max((t for t in TIERS if count >= self.least_steps[t]), key=TIERS.index)


def load_tier_rule(text: str, source: str = "tiers.toml") -> TierRule:
    """The rule from a tiers.toml's text; a malformed file raises TierRuleError naming the field."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise TierRuleError(f"{source}: not valid TOML: {exc}") from None

    def number(table: str, key: str, kind: type) -> Any:
        value = data.get(table, {}).get(key) if isinstance(data.get(table), dict) else None
        if isinstance(value, bool) or not isinstance(value, (int, float)) or (kind is int and not isinstance(value, int)):
            raise TierRuleError(f"{source}: [{table}] {key}: expected {'an integer' if kind is int else 'a number'}, got {value!r}")
        if value < 0:
            raise TierRuleError(f"{source}: [{table}] {key}: must not be negative, got {value!r}")
        return kind(value)

    least = {tier: number("steps", tier, int) for tier in TIERS}
    if not least["easy"] <= least["medium"] <= least["hard"]:
        raise TierRuleError(f"{source}: [steps] must not decrease from easy to medium to hard, got {least}")
    if least["easy"] != 0:
        raise TierRuleError(f"{source}: [steps] easy must be 0 (every solution has a tier), got {least['easy']}")
    medium, hard = number("headroom", "medium", float), number("headroom", "hard", float)
    if not 1.0 <= medium <= hard:
        raise TierRuleError(f"{source}: [headroom] needs 1 <= medium <= hard, got medium {medium}, hard {hard}")
    floor = number("headroom", "naive_at_floor", float)
    if not 0.0 < floor <= 1.0:
        raise TierRuleError(f"{source}: [headroom] naive_at_floor: a fraction in (0, 1], got {floor}")
    return TierRule(least, medium, hard, floor)


@lru_cache(maxsize=1)
def tier_rule() -> TierRule:
    """The shipped rule (regrapht/data/tiers.toml)."""
    return load_tier_rule(resources.files("regrapht").joinpath("data/tiers.toml").read_text(), "data/tiers.toml")


def declared_steps(source: str) -> list[str]:
    """The steps solution.cu lists on its first line (eval/suitecheck's reading), in order, without repeats."""
    return list(dict.fromkeys(solution_steps(source) or []))


@dataclass
class TierAudit:
    declared_tier: str
    tier: str
    step_tier: str = "easy"
    counted: list[str] = field(default_factory=list)  # found in the code and not in naive.cu, or on trust
    unverifiable: list[str] = field(default_factory=list)  # no static signal: taken on trust
    unseen: list[str] = field(default_factory=list)  # recognizable, but not found in solution.cu
    baseline: list[str] = field(default_factory=list)  # found in naive.cu too
    unknown: list[str] = field(default_factory=list)  # no method of the taxonomy (a misspelling): never counted
    headroom: float | None = None  # best-known over naive, measured on a GPU
    naive_roofline: float | None = None  # naive.cu's fraction of the roofline floor, measured on a GPU
    capped_by: str = ""  # why the measurement lowered the step tier, if it did

    @property
    def agrees(self) -> bool:
        return self.tier == self.declared_tier

    def reasons(self) -> str:
        """What the tier rests on, e.g. `solution.cu adds 1 step over naive.cu (memory_coalescing, on
        trust); best/naive 1.30x`."""
        steps = ", ".join(s + (" on trust" if s in self.unverifiable else "") for s in self.counted)
        parts = [
            f"solution.cu adds {len(self.counted)} step{'' if len(self.counted) == 1 else 's'} over naive.cu"
            + (f" ({steps})" if steps else "")
        ]
        if self.baseline:
            parts.append(f"already in naive.cu: {', '.join(self.baseline)}")
        if self.unseen:
            parts.append(f"declared but not found in the code: {', '.join(self.unseen)}")
        if self.unknown:
            parts.append(f"not a method of the taxonomy: {', '.join(self.unknown)}")
        if self.headroom is not None:
            parts.append(f"best/naive {self.headroom:.2f}x")
        if self.naive_roofline is not None:
            parts.append(f"naive.cu at {100 * self.naive_roofline:.0f}% of the roofline floor")
        if self.capped_by:
            parts.append(self.capped_by)
        return "; ".join(parts)

    def describe(self) -> str:
        return f"declared {self.declared_tier}, measured {self.tier}: {self.reasons()}"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self) | {"agrees": self.agrees}


def audit_tier(
    declared_tier: str,
    solution: str,
    naive: str | None,
    headroom: float | None = None,
    naive_roofline: float | None = None,
    recognizer: Callable[[str], Any] = recognize,
    visible: Collection[str] | None = None,
    rule: TierRule | None = None,
    known: Collection[str] | None = None,
) -> TierAudit:
    """The measured tier of a task whose best-known solution is `solution` (see the module's rule).
    `visible`: the methods the recognizer can see (by default, those it can see here: structural
    signals need tree-sitter); the others are taken on trust. `known`: the methods a step may name
    (by default the taxonomy's cuda methods); another name is no step and is not taken on trust."""
    rule = rule or tier_rule()
    visible = set(recognizable("cuda") if visible is None else visible)
    known = {m.name for m in default_taxonomy().for_target("cuda")} if known is None else set(known) | visible
    found = set(recognizer(solution).methods)
    in_naive = set(recognizer(naive).methods) if naive else set()
    audit = TierAudit(declared_tier, "easy", headroom=headroom, naive_roofline=naive_roofline)
    for step in declared_steps(solution):
        if step not in known:
            audit.unknown.append(step)
        elif step not in visible:
            audit.unverifiable.append(step)
            audit.counted.append(step)
        elif step in in_naive:
            audit.baseline.append(step)
        elif step in found:
            audit.counted.append(step)
        else:
            audit.unseen.append(step)
    audit.step_tier = audit.tier = rule.step_tier(len(audit.counted))
    if naive_roofline is not None and naive_roofline >= rule.naive_at_floor:
        audit.tier = "easy"
        audit.capped_by = f"naive.cu at or above {100 * rule.naive_at_floor:.0f}% of the floor makes a task easy"
    elif headroom is not None:
        for tier, least in (("easy", rule.headroom_medium), ("medium", rule.headroom_hard)):
            if headroom < least and TIERS.index(audit.tier) > TIERS.index(tier):
                audit.tier = tier
                above = TIERS[TIERS.index(tier) + 1]
                audit.capped_by = f"{above} needs best/naive >= {least:g}x"
                break
    return audit


def audit_task(task: Task, measured: dict[str, Any] | None = None, rule: TierRule | None = None) -> TierAudit | None:
    """The measured tier of a task with a best-known solution (None without one), from its files and,
    where `measured` (a `tasks check --gpu` result's) has them, best/naive and naive's roofline."""
    if task.solution_path is None or task.difficulty not in TIERS:
        return None
    measured = measured or {}
    return audit_tier(
        task.difficulty,
        task.solution_path.read_text(),
        task.naive_source(),
        headroom=measured.get("solution_speedup_over_naive"),
        naive_roofline=measured.get("naive_roofline"),
        rule=rule,
    )


def tier_problem(audit: TierAudit) -> str | None:
    """Why a task's declared difficulty fails the measured-tier rule, or None."""
    if audit.unknown:
        return (f"tier: solution.cu's steps name no method of the taxonomy (regrapht/data/methods.toml): "
                f"{', '.join(audit.unknown)}; {audit.describe()}")
    if audit.agrees:
        return None
    return (
        f"tier: {audit.describe()} (docs/suite.md, Measured tiers: set task.toml's difficulty to "
        f"{audit.tier}, or make solution.cu earn {audit.declared_tier})"
    )


def judge_tier(task: Task, check: TaskCheck, rule: TierRule | None = None) -> None:
    """Add the measured tier to a `tasks check` result, and fail it when the declared one disagrees.
    On the CPU the check has no measurements, so only the steps count; with --gpu, headroom too.
    A check that failed on the GPU before measuring the solution is judged by its steps."""
    if "tier" in check.measured:  # judged already (a kept row of a resumed check)
        return
    audit = audit_task(task, check.measured, rule)
    if audit is None:
        return
    check.measured["tier"] = audit.to_dict()
    if (problem := tier_problem(audit)) is not None:
        check.fail(problem)
