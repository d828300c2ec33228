"""Turn `regrapht tasks check --gpu --out FILE` results into the markdown tables of docs/suite.md.

Usage: python benchmarks/suite_table.py RESULTS.json [RESULTS.json ...]   (later files win per task)
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def fmt(value, spec: str = ".3f", suffix: str = "") -> str:
    return "–" if value is None else f"{value:{spec}}{suffix}"


def main(paths: list[str]) -> None:
    checks: dict[str, dict] = {}
    for path in paths:
        for check in json.loads(Path(path).read_text()):
            checks[check["task_id"]] = check
    order = {"easy": 0, "medium": 1, "hard": 2}
    for split in ("test", "train", "example"):
        rows = sorted(
            (c for c in checks.values() if c["split"] == split),
            key=lambda c: (order.get(c["difficulty"], 9), c["category"], c["task_id"]),
        )
        if not rows:
            continue
        print(f"\n### {split} split ({len(rows)} tasks checked)\n")
        print(
            "| task | difficulty | category | GPU check | serial ms | naive ms | best ms | best/serial | best/naive | naive % roofline | best % roofline |"
        )
        print("|---|---|---|---|---|---|---|---|---|---|---|")
        for c in rows:
            m = c["measured"]
            status = "pass" if c["ok"] else "FAIL: " + c["problems"][0].split(":")[0][:60]
            print(
                f"| {c['task_id']} | {c['difficulty']} | {c['category']} | {status} | {fmt(m.get('serial_ms'), '.1f')} | "
                f"{fmt(m.get('naive_ms'))} | {fmt(m.get('solution_ms'))} | "
                f"{fmt(m.get('solution_speedup_over_serial'), '.1f', 'x')} | {fmt(m.get('solution_speedup_over_naive'), '.2f', 'x')} | "
                f"{fmt(100 * m['naive_roofline'] if m.get('naive_roofline') else None, '.0f', '%')} | "
                f"{fmt(100 * m['solution_roofline'] if m.get('solution_roofline') else None, '.0f', '%')} |"
            )


if __name__ == "__main__":
    main(sys.argv[1:])
