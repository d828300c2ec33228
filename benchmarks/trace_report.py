"""Where a traced batch's wall time went, per process (the parent, each lane): read a REGRAPHT_TRACE
folder (eval/trace.py; `eval_throughput.py --trace` writes one per run) and print each process's
device time (items), the waits between items and what was being built meanwhile, its bench builds
phase by phase, its compiles and its serial timings; optionally as JSON.

    python benchmarks/trace_report.py RUN/trace [--zero WALL] [--json OUT]

--zero (a wall-clock time, e.g. eval_throughput's lane_began_wall) sets time 0; by default the
earliest span's start."""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path
from typing import Any


def load(folder: Path) -> dict[int, list[dict[str, Any]]]:
    """Spans per process id, each file being one process's."""
    spans: dict[int, list[dict[str, Any]]] = {}
    for path in sorted(folder.glob("trace-*.jsonl")):
        pid = int(path.stem.split("-", 1)[1])
        rows = []
        for line in path.read_text().splitlines():
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError:
                continue  # a line cut by a killed process
        spans[pid] = rows
    return spans


def union_seconds(intervals: list[tuple[float, float]]) -> float:
    total, end = 0.0, float("-inf")
    for a, b in sorted(intervals):
        if b <= end:
            continue
        total += b - max(a, end)
        end = b
    return total


def overlapping(spans: list[dict[str, Any]], start: float, end: float) -> list[dict[str, Any]]:
    return [s for s in spans if s["start"] < end and s["end"] > start]


def process_report(rows: list[dict[str, Any]], zero: float, top: int) -> dict[str, Any]:
    by_kind: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        by_kind[row["kind"]].append(row)
    head = (by_kind.get("process") or [{}])[0]
    items, waits = by_kind["item"], by_kind["wait"]
    builds, compiles = by_kind["bench_build"], by_kind["compile"]
    rel = lambda t: round(t - zero, 2)  # noqa: E731
    report: dict[str, Any] = {"gpus": head.get("gpus"), "items": len(items)}
    if items:
        report["device_first_last"] = [rel(min(s["start"] for s in items)), rel(max(s["end"] for s in items))]
        report["device_s"] = round(sum(s["end"] - s["start"] for s in items), 2)
        report["wait_s"] = round(sum(s["end"] - s["start"] for s in waits), 2)
        report["by_task_device_s"] = {
            task: round(sum(s["end"] - s["start"] for s in items if s["task"] == task), 2)
            for task in sorted({s["task"] for s in items})
        }
    long_waits = sorted(waits, key=lambda s: s["start"] - s["end"])[:top]
    report["longest_waits"] = [
        {
            "from": rel(w["start"]),
            "s": round(w["end"] - w["start"], 2),
            "then_ran": w.get("task"),
            "first_lacked": w.get("first"),  # [unfinished compiles, bench data still to come] of the first pending item
            "builds_under_way": sorted({b["task"] for b in overlapping(builds, w["start"], w["end"])}),
            "compiles_under_way": len(overlapping(compiles, w["start"], w["end"])),
        }
        for w in long_waits
    ]
    report["bench_builds"] = []
    for b in sorted(builds, key=lambda s: s["start"]):
        marks = b.get("marks", {})
        points = [b["start"], marks.get("key"), marks.get("hold"), marks.get("drawn"), b["end"]]
        phases = {}
        for name, a, z in zip(["serial_compile", "hold_wait", "draw_write", "reference"], points, points[1:]):
            if a is not None and z is not None:
                phases[name] = round(z - a, 2)
        first_item = min((s["start"] for s in items if s["task"] == b["task"]), default=None)
        report["bench_builds"].append(
            {"task": b["task"], "from": rel(b["start"]), "to": rel(b["end"]), **phases,
             "first_item_at": rel(first_item) if first_item else None}  # fmt: skip
        )
    if compiles:
        spans = [(s["start"], s["end"]) for s in compiles]
        queue = by_kind["compile_queue"]
        report["compiles"] = {
            "count": len(compiles),
            "process_s": round(sum(b - a for a, b in spans), 1),
            "busy_wall_s": round(union_seconds(spans), 1),
            "from_to": [rel(min(a for a, _ in spans)), rel(max(b for _, b in spans))],
            "queue_s": round(sum(s["end"] - s["start"] for s in queue), 1),
            "gate_wait_s": round(sum(s["start"] - s.get("asked", s["start"]) for s in compiles), 1),
            "by_source": {k: sum(1 for s in compiles if s.get("source") == k) for k in sorted({s.get("source") for s in compiles})},
        }
    timings = by_kind["serial_timing"]
    if timings:
        report["serial_timings"] = {
            "count": len(timings),
            "s": round(sum(s["end"] - s["start"] for s in timings), 1),
            "quiet": sum(1 for s in timings if s.get("quiet")),
            "pinned": sum(1 for s in timings if s.get("cpu") is not None),
            "span": [rel(min(s["start"] for s in timings)), rel(max(s["end"] for s in timings))],
        }
    cases = by_kind["cases"]
    if cases:
        report["cases_s"] = round(sum(s["end"] - s["start"] for s in cases), 2)
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folder", type=Path)
    parser.add_argument("--zero", type=float, default=None, help="wall-clock time 0 (default: the earliest span)")
    parser.add_argument("--top", type=int, default=8, help="longest waits shown per process")
    parser.add_argument("--json", type=Path, default=None, help="also write the report here")
    args = parser.parse_args()
    spans = load(args.folder)
    starts = [r["start"] for rows in spans.values() for r in rows if r["kind"] != "process"]
    if not starts:
        raise SystemExit(f"{args.folder}: no spans (was REGRAPHT_TRACE set for the run?)")
    zero = args.zero if args.zero is not None else min(starts)
    reports = {
        pid: process_report(rows, zero, args.top)
        for pid, rows in spans.items()
        if any(row["kind"] != "process" for row in rows)  # a process that traced nothing is left out
    }
    for pid, r in reports.items():
        print(f"== process {pid} (GPUs {r['gpus']}): {r['items']} items")
        for key, value in r.items():
            if key in ("gpus", "items"):
                continue
            if isinstance(value, list) and value and isinstance(value[0], dict):
                print(f"  {key}:")
                for entry in value:
                    print("    " + json.dumps(entry))
            else:
                print(f"  {key}: {json.dumps(value)}")
    if args.json:
        args.json.write_text(json.dumps({"zero": zero, "processes": reports}, indent=1))


if __name__ == "__main__":
    main()
