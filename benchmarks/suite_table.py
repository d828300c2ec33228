"""The task tables of docs/suite.md, from the shipped suite and `regrapht tasks check --gpu --out FILE`
results.

Usage: PYTHONPATH=src python benchmarks/suite_table.py [RESULTS.json ...]   (later files win per task)

Every shipped task gets a row, with its split, tier and category as its files say now. Its GPU
columns come from the latest result for it; a result taken on other files (its task_hash differs:
the task changed since) is shown as stale, and a task without one as not checked. The measured
tier is regrapht/bench/tiers.py's, from solution.cu and, where a current result has it, best/naive.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

from regrapht.bench.tiers import audit_tier
from regrapht.tasks import load_suite

ORDER = {"easy": 0, "medium": 1, "hard": 2}
HEADER = (
    "| task | difficulty | category | GPU check | serial ms | naive ms | best ms | best/serial | best/naive "
    "| naive % roofline | best % roofline | naive largest launch | measured tier |"
)


def fmt(value, spec: str = ".3f", suffix: str = "") -> str:
    return "–" if value is None else f"{value:{spec}}{suffix}"


def percent(value) -> str:
    return fmt(100 * value if value else None, ".0f", "%")


def status(check: dict | None, current_hash: str) -> str:
    if check is None:
        return "not checked"
    if check.get("task_hash") != current_hash:
        return "stale (changed since)"
    if not check["ok"]:
        return "FAIL: " + check["problems"][0].split(":")[0][:60]
    return "pass"


def launch(measured: dict) -> str:
    seen = measured.get("naive_launch")
    return "–" if not seen else f"{seen['max_blocks']} blocks / {seen['sms']} SMs"


def measured_tier(task, check: dict | None) -> str:
    """The tier bench/tiers.py derives (test tasks), with best/naive only from a current result."""
    if task.solution_path is None:
        return "–"
    current = check is not None and check.get("task_hash") == task.content_hash()
    headroom = check["measured"].get("solution_speedup_over_naive") if current else None
    audit = audit_tier(task.difficulty, task.solution_path.read_text(), task.naive_source(), headroom)
    return audit.tier + ("" if audit.agrees else f" (declared {audit.declared_tier})")


def row(task, check: dict | None) -> str:
    m = check["measured"] if check else {}
    return (
        f"| {task.id} | {task.difficulty} | {task.category} | {status(check, task.content_hash())} | "
        f"{fmt(m.get('serial_ms'), '.1f')} | {fmt(m.get('naive_ms'))} | {fmt(m.get('solution_ms'))} | "
        f"{fmt(m.get('solution_speedup_over_serial'), '.1f', 'x')} | "
        f"{fmt(m.get('solution_speedup_over_naive'), '.2f', 'x')} | "
        f"{percent(m.get('naive_roofline'))} | {percent(m.get('solution_roofline'))} | {launch(m)} | "
        f"{measured_tier(task, check)} |"
    )


def main(paths: list[str]) -> None:
    checks: dict[str, dict] = {}
    for path in paths:
        for check in json.loads(Path(path).read_text()):
            checks[check["task_id"]] = check
    suite = load_suite()
    gpus = sorted({c["gpu_name"] for c in checks.values() if c.get("gpu_name")})
    splits = Counter(t.split for t in suite)
    print(
        f"{len(suite)} tasks: "
        + ", ".join(
            f"{splits[s]} `{s}` ("
            + ", ".join(
                f"{n} {level}"
                for level in ORDER
                if (n := sum(1 for t in suite if t.split == s and t.difficulty == level))
            )
            + ")"
            for s in ("test", "train", "example")
        )
        + f", in {len({t.category for t in suite})} categories; GPU results from {', '.join(gpus) or 'none'}."
    )
    for split in ("test", "train", "example"):
        tasks = sorted(
            (t for t in suite if t.split == split), key=lambda t: (ORDER[t.difficulty], t.category, t.id)
        )
        print(f"\n### {split} split ({len(tasks)} tasks)\n")
        print(HEADER)
        print("|" + "---|" * HEADER.count(" | ") + "---|")
        for task in tasks:
            print(row(task, checks.get(task.id)))


if __name__ == "__main__":
    main(sys.argv[1:])
