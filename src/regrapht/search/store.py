"""The search layer's tables in the run store: evaluations keyed for reuse, and finished runs.

Evaluations are keyed by (task content hash, target, candidate hash, evaluator configuration,
machine). The machine is the GPU's name on the cuda target and the CPU model and core count on the
cpu target, so an evaluation measured on one GPU is never reused on another. The evaluator's
per-run secret (which inputs are drawn) is not part of the key: a verdict holds for the candidate,
not for one draw of inputs.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict
from datetime import datetime, timezone
from typing import Any

from regrapht.eval.config import EvalConfig
from regrapht.eval.record import Evaluation
from regrapht.store import RunStore, Schema

SEARCH_SCHEMA = Schema(
    "search",
    (
        """
        CREATE TABLE search_evaluations (
            key TEXT PRIMARY KEY,
            task_id TEXT NOT NULL,
            task_hash TEXT NOT NULL,
            target TEXT NOT NULL,
            source_sha256 TEXT NOT NULL,
            config_hash TEXT NOT NULL,
            machine TEXT NOT NULL,
            status TEXT NOT NULL,
            source TEXT NOT NULL,
            record_json TEXT NOT NULL,
            created_at TEXT NOT NULL
        );
        CREATE INDEX search_evaluations_task ON search_evaluations(task_id, target);
        CREATE TABLE search_runs (
            run_key TEXT PRIMARY KEY,
            task_id TEXT NOT NULL,
            strategy TEXT NOT NULL,
            model TEXT NOT NULL,
            seed INTEGER NOT NULL,
            group_label TEXT NOT NULL DEFAULT '',
            status TEXT NOT NULL,
            result_json TEXT,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL
        );
        CREATE INDEX search_runs_group ON search_runs(group_label);
        """,
    ),
)

# Settings that change how an evaluation is run, not a verdict or a timing: the input secret, where
# compiles are cached, how many compile in parallel, how much bench data is kept, whether and where
# serial baselines are kept (a kept one was timed by the same method on the same machine).
_NOT_IN_KEY = ("secret", "cache_dir", "jobs", "reference_cache_gib", "serial_cache", "serial_store")


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _canonical(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), default=str)


def config_hash(config: EvalConfig) -> str:
    d = asdict(config)
    for k in _NOT_IN_KEY:
        d.pop(k, None)
    return hashlib.sha256(_canonical(d).encode()).hexdigest()[:16]


def evaluation_key(task_hash: str, target: str, source_sha256: str, cfg_hash: str, machine: str) -> str:
    payload = {
        "task": task_hash,
        "target": target,
        "source": source_sha256,
        "config": cfg_hash,
        "machine": machine,
    }
    return hashlib.sha256(_canonical(payload).encode()).hexdigest()


class SearchStore:
    """Typed access to the search tables of a run store."""

    def __init__(self, store: RunStore) -> None:
        self.store = store
        store.apply(SEARCH_SCHEMA)

    # -- evaluations ---------------------------------------------------------------------------------
    def evaluation(self, key: str) -> Evaluation | None:
        row = self.store.query_one("SELECT record_json FROM search_evaluations WHERE key = ?", (key,))
        return None if row is None else Evaluation.from_dict(json.loads(row["record_json"]))

    def put_evaluation(
        self,
        key: str,
        *,
        task_id: str,
        task_hash: str,
        target: str,
        cfg_hash: str,
        machine: str,
        source: str,
        evaluation: Evaluation,
    ) -> None:
        self.store.execute(
            "INSERT OR REPLACE INTO search_evaluations(key, task_id, task_hash, target, source_sha256, "
            "config_hash, machine, status, source, record_json, created_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                key,
                task_id,
                task_hash,
                target,
                evaluation.candidate_sha256,
                cfg_hash,
                machine,
                evaluation.status,
                source,
                evaluation.to_json(indent=None),
                _now(),
            ),
        )

    def evaluation_count(self) -> int:
        row = self.store.query_one("SELECT COUNT(*) AS n FROM search_evaluations")
        return int(row["n"]) if row else 0

    # -- runs ------------------------------------------------------------------------------------------
    def finished_run(self, run_key: str) -> dict[str, Any] | None:
        row = self.store.query_one(
            "SELECT result_json FROM search_runs WHERE run_key = ? AND status = 'done'", (run_key,)
        )
        return None if row is None or row["result_json"] is None else json.loads(row["result_json"])

    def start_run(
        self, run_key: str, *, task_id: str, strategy: str, model: str, seed: int, group: str
    ) -> None:
        now = _now()
        self.store.execute(
            "INSERT INTO search_runs(run_key, task_id, strategy, model, seed, group_label, status, result_json, "
            "created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, 'running', NULL, ?, ?) "
            "ON CONFLICT(run_key) DO UPDATE SET updated_at = excluded.updated_at",
            (run_key, task_id, strategy, model, seed, group, now, now),
        )

    def finish_run(self, run_key: str, result: dict[str, Any]) -> None:
        self.store.execute(
            "UPDATE search_runs SET status = 'done', result_json = ?, updated_at = ? WHERE run_key = ?",
            (json.dumps(result, default=float), _now(), run_key),
        )

    def runs(self, group: str | None = None) -> list[dict[str, Any]]:
        sql = "SELECT run_key, task_id, strategy, model, seed, group_label, status FROM search_runs"
        rows = (
            self.store.query(sql + " WHERE group_label = ? ORDER BY created_at, run_key", (group,))
            if group is not None
            else self.store.query(sql + " ORDER BY created_at, run_key")
        )
        return [dict(r) for r in rows]
