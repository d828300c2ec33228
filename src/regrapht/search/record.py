"""Run records: every attempt a search made, and the run's result.

An **attempt** is one generation and, when code came back, its evaluation. Attempts link to the
attempt whose code they started from (`parent`; None means the task's starting code), so the path a
search took through the graph to its best kernel is the chain of parents of the best attempt.
Code is kept once per content hash in `SearchResult.codes`.
"""

from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass, field
from typing import Any

from regrapht.search.budget import Budget, Spend

RECORD_VERSION = 1


def code_hash(code: str) -> str:
    return hashlib.sha256(code.encode()).hexdigest()


@dataclass
class Attempt:
    """One generation of a run and its verdict.

    `status` is the evaluator's status for code that was evaluated, or `no_code` (the answer held no
    usable code) or `no_recorded_step` (the offline policy has no recorded step for the request).
    `reward` is the hierarchical reward (ReGraphT Eq. 3; -1 for anything that is not correct).
    `speedups` holds {baseline: {value, ci_low, ci_high}} as the evaluator measured them.
    """

    index: int
    kind: str  # expand | rollout | walk | greedy | single | refine | contrastive
    parent: int | None
    method: str | None  # the graph method the step applied (None for whole-task prompts)
    source: tuple[str, ...]  # where the starting code sat on the graph
    template: str
    sample: int  # how many times this exact request had been asked before in the run
    finish_reason: str
    status: str
    reward: float
    code_sha: str | None = None
    message: str = ""
    parse_rule: str = ""
    speedups: dict[str, dict[str, Any]] = field(default_factory=dict)
    median_s: float | None = None
    roofline: dict[str, Any] = field(default_factory=dict)
    eval_key: str | None = None
    new_evaluation: bool = False  # the first time this run evaluated this code
    reused_evaluation: bool = False  # ... and the evaluation came from the run store
    gpu_seconds: float = 0.0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    recognized: tuple[str, ...] = ()
    position: tuple[str, ...] = ()  # where the new code sits on the graph
    iteration: int | None = None  # MCGS iteration (selection + expansion + rollout + backpropagation)
    examples: tuple[str, ...] = ()  # "task:step@trajectory" of the worked examples shown
    evaluations_so_far: int = 0  # distinct evaluations of the run up to and including this attempt
    reward_baseline: str = "serial"  # the baseline of the speedup the reward is computed from

    @property
    def correct(self) -> bool:
        return self.status == "correct"

    def speedup(self, baseline: str = "serial") -> float | None:
        entry = self.speedups.get(baseline)
        return None if entry is None else float(entry["value"])

    def interval(self) -> tuple[float, float, float] | None:
        """(low, value, high) of the reward's speedup; a missing bound stands at the value."""
        entry = self.speedups.get(self.reward_baseline)
        if entry is None or entry.get("value") is None:
            return None
        value = float(entry["value"])
        low, high = entry.get("ci_low"), entry.get("ci_high")
        return (value if low is None else float(low), value, value if high is None else float(high))

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        for key in ("source", "recognized", "position", "examples"):
            d[key] = list(d[key])
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Attempt:
        d = dict(d)
        for key in ("source", "recognized", "position", "examples"):
            d[key] = tuple(d.get(key, ()))
        known = {k: d[k] for k in cls.__dataclass_fields__ if k in d}
        return cls(**known)


def faster_beyond_noise(a: Attempt, b: Attempt) -> bool | None:
    """Whether `a` is faster than `b` beyond the noise of their measurements: True when a's speedup
    interval lies wholly above b's, False when wholly below, None when they overlap (or when either
    was not timed, in which case the rewards decide: True or False, never None)."""
    ia, ib = a.interval(), b.interval()
    if ia is None or ib is None or a.reward_baseline != b.reward_baseline:
        return a.reward > b.reward
    if ia[0] > ib[2]:
        return True
    if ia[2] < ib[0]:
        return False
    return None


@dataclass
class SearchResult:
    """The record of one search run (what `regrapht optimize --json` prints and result.json holds)."""

    task: dict[str, Any]
    target: str
    strategy: str
    params: dict[str, Any]
    model: dict[str, Any]  # identity, offline (bool), label
    seed: int
    budget: Budget
    spent: Spend = field(default_factory=Spend)
    attempts: list[Attempt] = field(default_factory=list)
    codes: dict[str, str] = field(default_factory=dict)
    best: int | None = None  # index of the best attempt (correct, highest reward)
    stopped: str = ""  # why the run ended
    error: str | None = None  # a task or tool error that ended the run (not the candidate's fault)
    graph: dict[str, Any] | None = None
    machine: str = ""
    start: dict[str, Any] = field(default_factory=dict)  # {code_sha, position}
    run_key: str = ""
    details: dict[str, Any] = field(default_factory=dict)  # strategy-specific facts (MCGS: the tree)
    version: int = RECORD_VERSION

    @property
    def best_attempt(self) -> Attempt | None:
        return None if self.best is None else self.attempts[self.best]

    @property
    def best_code(self) -> str | None:
        a = self.best_attempt
        return None if a is None or a.code_sha is None else self.codes[a.code_sha]

    def best_notes(self) -> list[str]:
        """What a reader should know about the best kernel's lead: whether its speedup is within the
        noise of its baseline, and which other correct kernels are within the noise of it."""
        best = self.best_attempt
        if best is None:
            return []
        notes = []
        iv = best.interval()
        if iv is not None and iv[0] <= 1.0 <= iv[2]:
            notes.append(
                f"its speedup over {best.reward_baseline} ({iv[1]:.3g}x, 95% CI {iv[0]:.3g}-{iv[2]:.3g}) "
                "is within noise of 1: it is not shown to be faster than the baseline"
            )
        ties: dict[str | None, int] = {}  # one attempt per code: the first that reached it
        for a in self.attempts:
            if a.correct and a.code_sha != best.code_sha and faster_beyond_noise(a, best) is None:
                ties.setdefault(a.code_sha, a.index)
        if ties:
            first = sorted(ties.values())
            shown = ", ".join(f"#{i}" for i in first[:8]) + (" ..." if len(first) > 8 else "")
            notes.append(f"{len(ties)} other correct kernel(s) are within noise of it ({shown})")
        return notes

    def summary_attempt(self) -> Attempt | None:
        """The attempt that stands for the run in suite metrics: the best correct one, else the one that
        got furthest up the status ladder (the latest among equals)."""
        if self.best is not None:
            return self.attempts[self.best]
        from regrapht.eval.record import RANK

        ranked = [a for a in self.attempts if a.status in RANK]
        if not ranked:
            return self.attempts[-1] if self.attempts else None
        top = max(RANK[a.status] for a in ranked)
        return [a for a in ranked if RANK[a.status] == top][-1]

    def path(self, index: int | None = None) -> list[Attempt]:
        """The chain of attempts from the starting code to attempt `index` (default: the best)."""
        i = self.best if index is None else index
        chain: list[Attempt] = []
        while i is not None:
            a = self.attempts[i]
            chain.append(a)
            i = a.parent
        return list(reversed(chain))

    def code_of(self, attempt: Attempt | None) -> str | None:
        if attempt is None:
            sha = self.start.get("code_sha")
            return self.codes.get(sha) if sha else None
        return None if attempt.code_sha is None else self.codes.get(attempt.code_sha)

    def to_dict(self) -> dict[str, Any]:
        return {
            "version": self.version,
            "run_key": self.run_key,
            "task": self.task,
            "target": self.target,
            "strategy": self.strategy,
            "params": self.params,
            "model": self.model,
            "seed": self.seed,
            "budget": self.budget.to_dict(),
            "spent": self.spent.to_dict(),
            "stopped": self.stopped,
            "error": self.error,
            "best": self.best,
            "graph": self.graph,
            "machine": self.machine,
            "start": self.start,
            "details": self.details,
            "attempts": [a.to_dict() for a in self.attempts],
            "codes": self.codes,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> SearchResult:
        return cls(
            task=d["task"],
            target=d["target"],
            strategy=d["strategy"],
            params=d.get("params", {}),
            model=d.get("model", {}),
            seed=int(d.get("seed", 0)),
            budget=Budget.from_dict(d["budget"]),
            spent=Spend.from_dict(d.get("spent", {})),
            attempts=[Attempt.from_dict(a) for a in d.get("attempts", [])],
            codes=dict(d.get("codes", {})),
            best=d.get("best"),
            stopped=d.get("stopped", ""),
            error=d.get("error"),
            graph=d.get("graph"),
            machine=d.get("machine", ""),
            start=d.get("start", {}),
            run_key=d.get("run_key", ""),
            details=dict(d.get("details", {})),
            version=int(d.get("version", RECORD_VERSION)),
        )
