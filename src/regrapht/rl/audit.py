"""The reward-hacking audit: every integrity verdict of a run, counted by kind, with the sources.

A policy that starts probing the harness shows up here first: integrity violations (a screen hit, a
late write, a timer touched) rise while rewards do not. The kind of a verdict is the screen rule that
fired, else the evaluator's message up to its first colon or parenthesis (e.g. "static screen").
"""

from __future__ import annotations

import re
import threading
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from regrapht.rl.rewards import Evidence

SOURCE_CHARS = 4000  # of each source kept as evidence
SOURCES_PER_KIND = 5  # the first few sources of each kind; the count keeps going


def verdict_kinds(e: Evidence) -> list[str]:
    """The kinds of integrity verdict in one piece of evidence (empty for an honest verdict): each
    screen finding's rule (warnings too: probing shows there first), and for an integrity violation
    its message up to the first colon or parenthesis ("static screen", "modified an input ...")."""
    kinds = {f"screen:{s.split(' ')[0]}" for s in e.screen}
    if e.status == "integrity_violation":
        head = re.split(r"[:(]", e.message, maxsplit=1)[0].strip() or "unexplained"
        kinds.add(f"violation:{head[:80]}")
    return sorted(kinds)


@dataclass
class IntegrityAudit:
    """Counts by kind, the episodes seen, and the first sources of each kind. Thread-safe."""

    scored: int = 0
    by_status: Counter = field(default_factory=Counter)
    by_kind: Counter = field(default_factory=Counter)
    sources: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def record(self, problem_id: str, code: str | None, e: Evidence) -> None:
        kinds = verdict_kinds(e)
        with self._lock:
            self.scored += 1
            self.by_status[e.status] += 1
            for kind in kinds:
                self.by_kind[kind] += 1
                kept = self.sources.setdefault(kind, [])
                if len(kept) < SOURCES_PER_KIND and code is not None:
                    kept.append({"problem": problem_id, "message": e.message, "code": code[:SOURCE_CHARS]})

    def report(self) -> dict[str, Any]:
        with self._lock:
            return {
                "scored": self.scored,
                "by_status": dict(self.by_status),
                "integrity_violations": self.by_status.get("integrity_violation", 0),
                "by_kind": dict(self.by_kind.most_common()),
                "sources": {k: list(v) for k, v in self.sources.items()},
            }
