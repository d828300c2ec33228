"""The replay buffer of scored completions per task, kept in the run store, for contrastive prompts.

CUDA-L1 shows the model earlier code with its measured speedups and asks what made the fast ones
fast. The buffer keeps, per task, at most `capacity` entries with distinct code; when full, the oldest
entry that is neither among the `keep` best nor the `keep` worst goes, so the prompt's extremes stay.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from regrapht.store import RunStore, Schema

SCHEMA = Schema(
    "rl_replay",
    (
        """
        CREATE TABLE rl_replay (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            task_id TEXT NOT NULL,
            variant TEXT NOT NULL,
            sizes_json TEXT NOT NULL,
            code_sha256 TEXT NOT NULL,
            code TEXT NOT NULL,
            status TEXT NOT NULL,
            speedup REAL,
            reward REAL NOT NULL,
            UNIQUE (task_id, code_sha256)
        );
        CREATE INDEX rl_replay_task ON rl_replay(task_id, reward);
        """,
    ),
)


@dataclass(frozen=True)
class Entry:
    task_id: str
    variant: str
    sizes: dict[str, int]
    code: str
    status: str
    speedup: float | None
    reward: float

    def to_dict(self) -> dict[str, Any]:
        return {"task_id": self.task_id, "variant": self.variant, "sizes": self.sizes, "code": self.code,
                "status": self.status, "speedup": self.speedup, "reward": self.reward}


class ReplayBuffer:
    """Scored completions per task, bounded and persisted (`RunStore` path, or ":memory:")."""

    def __init__(self, path: str = ":memory:", capacity: int = 32, keep: int = 4):
        if capacity < 2 * keep or keep < 1:
            raise ValueError(f"capacity ({capacity}) must hold the {keep} best and {keep} worst (keep >= 1)")
        self.store = RunStore(path, schemas=[SCHEMA])
        self.capacity = capacity
        self.keep = keep

    def add(self, entry: Entry) -> bool:
        """Record a scored completion; False when the same code is already there for its task (its
        first score stands: a resubmission cannot launder a reward)."""
        sha = hashlib.sha256(entry.code.encode()).hexdigest()
        with self.store.transaction() as conn:
            added = conn.execute(
                "INSERT OR IGNORE INTO rl_replay (task_id, variant, sizes_json, code_sha256, code, status,"
                " speedup, reward) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (entry.task_id, entry.variant, json.dumps(entry.sizes, sort_keys=True), sha, entry.code,
                 entry.status, entry.speedup, entry.reward),
            ).rowcount
            self._trim(conn, entry.task_id)
        return bool(added)

    def _trim(self, conn: Any, task_id: str) -> None:
        rows = conn.execute("SELECT id FROM rl_replay WHERE task_id = ? ORDER BY reward, id", (task_id,)).fetchall()
        excess = len(rows) - self.capacity
        if excess <= 0:
            return
        extremes = {r[0] for r in rows[: self.keep]} | {r[0] for r in rows[-self.keep :]}
        middle = sorted(r[0] for r in rows if r[0] not in extremes)  # ids grow with time: oldest first
        for row_id in middle[:excess]:
            conn.execute("DELETE FROM rl_replay WHERE id = ?", (row_id,))

    def entries(self, task_id: str) -> list[Entry]:
        rows = self.store.query("SELECT * FROM rl_replay WHERE task_id = ? ORDER BY reward, id", (task_id,))
        return [Entry(r["task_id"], r["variant"], json.loads(r["sizes_json"]), r["code"], r["status"],
                      r["speedup"], r["reward"]) for r in rows]

    def exemplars(self, task_id: str, k: int) -> list[Entry]:
        """The k entries a contrastive prompt shows: the best half and the worst half, worst first
        (fewer when the buffer holds fewer)."""
        rows = self.entries(task_id)
        if len(rows) <= k:
            return rows
        best = k // 2 + k % 2
        return rows[: k - best] + rows[-best:]

    def close(self) -> None:
        self.store.close()
