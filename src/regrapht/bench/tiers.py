"""Measured tiers: a test task's difficulty recomputed from what its best-known solution is seen to do
and how far it gets beyond naive.cu, instead of the count of labels on solution.cu's first line.

The rule (docs/suite.md, Measured tiers):
1. Steps. Of the steps solution.cu declares, count those the method recognizer (graph/recognize.py)
   finds in its code, and those it has no static signal for (kernel fusion, coalescing,
   algorithmic change: taken on trust, and listed as such). `parallelize` never counts when naive.cu
   is already parallel: it is what the baseline did. A declared step the recognizer can see but
   does not find does not count (and is listed: the declaration or the recognizer is wrong).
2. Tier from the count: easy 1-2 (or none), medium 3-5, hard 6 or more, as for declared tiers.
3. Headroom. Where the GPU check measured the solution against naive.cu, a solution less than
   HEADROOM_EASY times faster makes the task easy whatever its steps: matching the best known is
   then as easy as writing the naive port.

This lives in bench/ because it joins the evaluator's measurements with the graph's recognizer,
which eval/ must not import.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from regrapht.graph.recognize import recognize, unrecognizable

HEADROOM_EASY = 1.25
STEP_TIERS = (("hard", 6), ("medium", 3), ("easy", 0))  # the least count of counted steps for each
STEPS_PREFIX = "// steps:"


def declared_steps(source: str) -> list[str]:
    """The steps solution.cu lists on its first line, in order, without repeats."""
    first = source.lstrip().splitlines()[0] if source.strip() else ""
    if not first.startswith(STEPS_PREFIX):
        return []
    steps = [m.strip() for m in first[len(STEPS_PREFIX) :].split(",") if m.strip()]
    return list(dict.fromkeys(steps))


@dataclass
class TierAudit:
    declared_tier: str
    tier: str
    counted: list[str] = field(default_factory=list)  # found in the code, or unverifiable
    unverifiable: list[str] = field(default_factory=list)  # no static signal: taken on trust
    unseen: list[str] = field(default_factory=list)  # recognizable, but not found in the code
    baseline: list[str] = field(default_factory=list)  # already in naive.cu (parallelize)
    headroom: float | None = None  # best-known over naive, measured on a GPU

    @property
    def agrees(self) -> bool:
        return self.tier == self.declared_tier

    def describe(self) -> str:
        parts = [f"measured tier {self.tier} (declared {self.declared_tier}): {len(self.counted)} steps counted"]
        if self.unverifiable:
            parts.append(f"taken on trust: {', '.join(self.unverifiable)}")
        if self.unseen:
            parts.append(f"declared but not found in the code: {', '.join(self.unseen)}")
        if self.baseline:
            parts.append(f"already in naive.cu: {', '.join(self.baseline)}")
        if self.headroom is not None:
            parts.append(f"best/naive {self.headroom:.2f}x")
        return "; ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self) | {"agrees": self.agrees}


def tier_of_count(count: int) -> str:
    return next(tier for tier, least in STEP_TIERS if count >= least)


def audit_tier(
    declared_tier: str,
    solution: str,
    naive: str | None,
    headroom: float | None = None,
    recognizer: Callable[[str], Any] = recognize,
) -> TierAudit:
    """The measured tier of a task whose best-known solution is `solution` (see the module's rule)."""
    declared = declared_steps(solution)
    found = set(recognizer(solution).methods)
    in_naive = set(recognizer(naive).methods) if naive else set()
    silent = set(unrecognizable("cuda"))
    audit = TierAudit(declared_tier=declared_tier, tier="easy", headroom=headroom)
    for step in declared:
        if step == "parallelize" and "parallelize" in in_naive:
            audit.baseline.append(step)
        elif step in silent:
            audit.unverifiable.append(step)
            audit.counted.append(step)
        elif step in found:
            audit.counted.append(step)
        else:
            audit.unseen.append(step)
    audit.tier = tier_of_count(len(audit.counted))
    if headroom is not None and headroom < HEADROOM_EASY:
        audit.tier = "easy"
    return audit
