"""The serial baseline of a task on a machine, timed once in quiet and kept for later runs.

Speedup over the serial reference is the default reward's baseline. Timed afresh in every run, on a
machine busy with the batch's builds, it moved by up to 1.7x between runs (docs/benchmarks.md). So a
timing that was quiet enough (`acceptable`) is kept in a SQLite file and reused, samples and spread
included, by every later evaluator on the same machine, for the same task content, bench size,
compiled reference and timing method. Anything that could change the serial time is in the key, so a
stale or foreign timing is never reused:

- the task: its id, the hash of every file in its folder (serial.cpp, task.toml with its bench
  size and generators), the bench size and the number of input sets;
- the compiled reference: the compile cache key of serial.cpp, which covers its source, the flags,
  the compiler's version and (for `-march=native`) the CPU model;
- the machine: host name, /etc/machine-id, CPU model, logical CPUs, the CPUs this process may
  use, and total memory;
- the method: regrapht's version, `SERIAL_METHOD`, and the serial timing budget and round cap.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import os
import socket
import sqlite3
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np

import regrapht
from regrapht.eval import toolchain
from regrapht.store import RunStore, Schema, StoreError

# Bump when the way the serial reference is timed changes (flush, warm-up, rounds, statistic).
SERIAL_METHOD = 1

SCHEMA = Schema(
    "eval_serial_baselines",
    (
        """
        CREATE TABLE serial_baselines (
            key TEXT PRIMARY KEY,
            task_id TEXT NOT NULL,
            fields_json TEXT NOT NULL,
            samples_json TEXT NOT NULL,
            median_s REAL NOT NULL,
            rel_iqr REAL NOT NULL,
            n INTEGER NOT NULL,
            quiet INTEGER NOT NULL,
            background_cores REAL,
            measured_at TEXT NOT NULL
        );
        CREATE INDEX serial_baselines_task ON serial_baselines(task_id);
        """,
        """
        CREATE TABLE serial_pool (
            key TEXT PRIMARY KEY,
            task_id TEXT NOT NULL,
            samples_json TEXT NOT NULL,
            timings INTEGER NOT NULL,
            background_cores REAL,
            measured_at TEXT NOT NULL
        );
        CREATE INDEX serial_pool_task ON serial_pool(task_id);
        """,
        # Other serial timings that ran beside this one at a batch's end, each on a core of its own
        # (0: timed alone).
        """
        ALTER TABLE serial_baselines ADD COLUMN concurrent INTEGER NOT NULL DEFAULT 0;
        """,
    ),
)


# Samples a timing needs before it can be kept: fewer say nothing of their own spread.
KEEP_MIN_SAMPLES = 3
# Quiet timings pooled for one key before the pool is kept whatever its spread. Some references vary
# between processes by more than a few quiet samples can pin (gemv moved 226 -> 326 ms between quiet
# runs on an H100 host, docs/benchmarks.md): each quiet run adds its samples to the key's pool, runs
# divide by the pool's median, and after this many the pool is kept, its spread with it, so the
# baseline stops moving.
POOL_KEEP_TIMINGS = 3


@dataclass
class SerialBaseline:
    samples: list[float]
    quiet: bool  # no other work of the evaluator ran while it was timed
    background_cores: float | None  # other CPU activity during the timing, in cores (None: unknown)
    measured_at: str = field(default_factory=lambda: datetime.now(timezone.utc).isoformat(timespec="seconds"))
    source: str = "measured"  # "store": reused from an earlier evaluator's timing; "pooled": this
    # run's quiet samples with those of earlier quiet runs of the same key
    timings: int = 1  # quiet timings (evaluator runs) the samples come from
    key: str = ""
    not_kept: str = ""  # why a fresh timing was not kept for later runs
    # Other serial timings that could run at the same time (the settle's width less one: an upper
    # bound), each pinned to a physical core of its own (a batch's end, eval/settle.py); 0: timed
    # alone. `background_cores` then counts this timing's physical core only.
    concurrent: int = 0
    checked_alone: bool = False  # a pinned timing whose median agreed with a short timing alone

    @property
    def median_s(self) -> float:
        return float(np.median(self.samples))

    @property
    def rel_iqr(self) -> float:
        """The spread of the samples: interquartile range over median."""
        q1, median, q3 = np.percentile(np.asarray(self.samples, dtype=np.float64), [25, 50, 75])
        return float((q3 - q1) / median) if median > 0 else float("inf")

    @property
    def rel_median_error(self) -> float:
        """The median's relative standard error, from the interquartile range: for a normal spread
        sigma = IQR / 1.349 and the median's standard error 1.2533 sigma / sqrt(n). Three quiet samples
        with a 3% spread leave the median uncertain by 1.6%; 27 samples with a 5% spread, by 0.9%. Fewer
        than `KEEP_MIN_SAMPLES` tell nothing of the spread: infinite."""
        if len(self.samples) < KEEP_MIN_SAMPLES:
            return float("inf")
        return 1.2533 * (self.rel_iqr / 1.349) / math.sqrt(len(self.samples))

    def problem(self, max_median_error: float, max_background: float) -> str | None:
        """Why this timing must not become the machine's baseline, or None. A pool of
        `POOL_KEEP_TIMINGS` quiet timings is kept whatever its spread, which it records."""
        if not self.samples:
            return "no samples"
        disturbed = self.disturbed(max_background)
        if disturbed is not None:
            return disturbed
        if len(self.samples) < KEEP_MIN_SAMPLES:
            return f"{len(self.samples)} sample(s): at least {KEEP_MIN_SAMPLES} are needed to know the median's error"
        if self.rel_median_error > max_median_error and self.timings < POOL_KEEP_TIMINGS:
            return (
                f"its median is known to {self.rel_median_error:.2%} only ({len(self.samples)} samples spread by "
                f"{self.rel_iqr:.1%}, interquartile range over median; at most {max_median_error:.1%})"
                + (f", pooled from {self.timings} quiet runs of {POOL_KEEP_TIMINGS}" if self.timings > 1 else "")
            )
        return None

    def disturbed(self, max_background: float) -> str | None:
        """Why the timing was not quiet (so it may neither be kept nor pooled), or None."""
        if not self.quiet:
            return "other work of the evaluator was still running when the timing began"
        if self.background_cores is None:
            return "the machine's other CPU activity could not be measured"
        if self.background_cores > max_background:
            return (
                f"other processes kept {self.background_cores:.2f} cores busy during the timing "
                f"(at most {max_background:g} allowed)"
            )
        return None

    def to_record(self) -> dict[str, Any]:
        """What the evaluation record carries beside the summary of the samples."""
        return {
            "source": self.source,
            "rel_iqr": self.rel_iqr,
            "rel_median_error": self.rel_median_error,
            "quiet": self.quiet,
            "background_cores": self.background_cores,
            "measured_at": self.measured_at,
            "baseline_key": self.key[:16],
            "not_kept": self.not_kept,
            "samples": len(self.samples),
            "timings": self.timings,
            "concurrent": self.concurrent,
            "checked_alone": self.checked_alone,
        }


@functools.cache
def machine_identity() -> dict[str, Any]:
    try:
        machine_id = Path("/etc/machine-id").read_text().strip()
    except OSError:
        machine_id = ""
    try:
        usable = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        usable = os.cpu_count() or 0
    try:
        memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError):
        memory = 0
    return {
        "host": socket.gethostname(),
        "machine_id": machine_id,
        "cpu": toolchain.cpu_model(),
        "cpus": os.cpu_count() or 0,
        "usable_cpus": usable,
        "memory_bytes": memory,
    }


def baseline_key(
    task_id: str,
    task_hash: str,
    bench_size: dict[str, int],
    input_sets: int,
    serial_build_key: str,
    serial_budget_s: float,
    serial_max_rounds: int,
) -> tuple[str, dict[str, Any]]:
    """The key of a serial baseline, and the fields it hashes (kept beside it, to tell why two differ)."""
    fields = {
        "task": task_id,
        "task_hash": task_hash,
        "bench_size": dict(sorted(bench_size.items())),
        "input_sets": input_sets,
        "serial_build": serial_build_key,
        "machine": machine_identity(),
        "regrapht": regrapht.__version__,
        "method": SERIAL_METHOD,
        "serial_budget_s": serial_budget_s,
        "serial_max_rounds": serial_max_rounds,
    }
    digest = hashlib.sha256(json.dumps(fields, sort_keys=True).encode()).hexdigest()
    return digest, fields


class SerialBaselineStore:
    """Serial baselines in a SQLite file shared by every evaluator on the machine (several processes
    may open it). The first acceptable timing of a key is kept; later ones do not replace it."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.store = RunStore(self.path, schemas=[SCHEMA])

    def get(self, key: str) -> SerialBaseline | None:
        row = self.store.query_one(
            "SELECT samples_json, quiet, background_cores, measured_at, concurrent FROM serial_baselines WHERE key = ?",
            (key,),
        )
        if row is None:
            return None
        samples = [float(s) for s in json.loads(row["samples_json"])]
        if not samples or not all(s > 0 for s in samples):
            return None  # a damaged entry is measured again, never divided by
        pooled = self.store.query_one("SELECT timings FROM serial_pool WHERE key = ?", (key,))
        return SerialBaseline(
            samples,
            bool(row["quiet"]),
            row["background_cores"],
            row["measured_at"],
            source="store",
            key=key,
            timings=int(pooled["timings"]) if pooled is not None else 1,
            concurrent=int(row["concurrent"] or 0),
        )

    def put(self, key: str, fields: dict[str, Any], baseline: SerialBaseline) -> bool:
        """Keep `baseline` under `key` unless one is kept already; True when this one was kept."""
        with self.store.transaction() as conn:
            cursor = conn.execute(
                "INSERT OR IGNORE INTO serial_baselines (key, task_id, fields_json, samples_json, median_s,"
                " rel_iqr, n, quiet, background_cores, measured_at, concurrent)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    key,
                    str(fields.get("task", "")),
                    json.dumps(fields, sort_keys=True),
                    json.dumps(baseline.samples),
                    baseline.median_s,
                    baseline.rel_iqr,
                    len(baseline.samples),
                    int(baseline.quiet),
                    baseline.background_cores,
                    baseline.measured_at,
                    baseline.concurrent,
                ),
            )
            return cursor.rowcount == 1

    def pool(self, key: str, fields: dict[str, Any], baseline: SerialBaseline) -> SerialBaseline:
        """Add a quiet timing's samples to the key's pool; the pool, this timing's samples included.
        Only quiet timings belong here (`SerialBaseline.disturbed` is None): a pool mixes runs, never
        a busy host with a quiet one."""
        with self.store.transaction() as conn:
            row = conn.execute(
                "SELECT samples_json, timings, background_cores FROM serial_pool WHERE key = ?", (key,)
            ).fetchone()
            # A settle's pinned timing may already pool several runs of its own (Oracle.time_pinned).
            runs = max(1, baseline.timings)
            samples, timings, background = list(baseline.samples), runs, baseline.background_cores or 0.0
            if row is not None:
                earlier = [float(s) for s in json.loads(row["samples_json"])]
                if earlier and all(s > 0 for s in earlier):  # a damaged pool starts again
                    samples = earlier + samples
                    timings = int(row["timings"]) + runs
                    background = max(background, row["background_cores"] or 0.0)
            conn.execute(
                "INSERT OR REPLACE INTO serial_pool (key, task_id, samples_json, timings, background_cores,"
                " measured_at) VALUES (?, ?, ?, ?, ?, ?)",
                (key, str(fields.get("task", "")), json.dumps(samples), timings, background, baseline.measured_at),
            )
        return SerialBaseline(
            samples,
            quiet=True,
            background_cores=background,
            measured_at=baseline.measured_at,
            source="pooled" if timings > 1 else baseline.source,
            key=key,
            timings=timings,
        )

    def forget(self, task_id: str | None = None) -> int:
        """Drop the kept baselines and pools (of one task, or all), so they are timed again; how many
        kept baselines went."""
        with self.store.transaction() as conn:
            if task_id is None:
                conn.execute("DELETE FROM serial_pool")
                return conn.execute("DELETE FROM serial_baselines").rowcount
            conn.execute("DELETE FROM serial_pool WHERE task_id = ?", (task_id,))
            return conn.execute("DELETE FROM serial_baselines WHERE task_id = ?", (task_id,)).rowcount

    def close(self) -> None:
        self.store.close()


def keep_or_pool(
    store: SerialBaselineStore,
    key: str,
    fields: dict[str, Any],
    baseline: SerialBaseline,
    max_median_error: float,
    max_background: float,
) -> None:
    """Settle a fresh timing: a quiet one joins its key's pool and `baseline` becomes the pool (so
    this run divides by the median of every quiet run so far); the pool is kept as the machine's
    baseline once `problem` allows. `baseline.not_kept` says why it was not. Store errors propagate."""
    if baseline.samples and baseline.disturbed(max_background) is None:
        pooled = store.pool(key, fields, baseline)
        baseline.samples, baseline.timings, baseline.source = pooled.samples, pooled.timings, pooled.source
        baseline.background_cores = pooled.background_cores
    problem = baseline.problem(max_median_error, max_background)
    if problem is not None:
        baseline.not_kept = problem
        return
    if not store.put(key, fields, baseline):
        # Another evaluator kept one first: this run divides by its own timing, later runs by that one.
        baseline.not_kept = "another evaluator kept a timing for this key first"


def open_store(path: str | Path) -> tuple[SerialBaselineStore | None, str | None]:
    """The store at `path`, or None and why it cannot be used (the evaluator then times every run)."""
    try:
        return SerialBaselineStore(path), None
    except (StoreError, OSError, sqlite3.Error) as exc:
        return None, f"serial baseline store {path} unavailable: {exc}"
