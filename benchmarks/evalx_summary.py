"""The numbers issue 21 asks for, from one benchmarks/evalx_session.sh folder: each run's evaluations
per GPU-minute and wall minute with where the GPU-held time went, two GPUs vs one (per wall minute),
defended vs bare per mix, and the repeatability spread. Usage: python benchmarks/evalx_summary.py DIR"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def runs(folder: Path) -> list[dict]:
    try:
        return json.loads((folder / "eval_throughput.json").read_text()).get("throughput", [])
    except (OSError, ValueError):
        return []


def line(name: str, t: dict) -> str:
    held = t["phases"]["held_per_candidate_s"]
    parts = ", ".join(f"{k} {v:.3f}" for k, v in held.items() if k != "held" and v >= 0.0005)
    staging = ", ".join(f"{k} {v:.3f}" for k, v in t["phases"].get("staging_per_candidate_s", {}).items())
    per_gpu = t["evals_per_gpu_minute"]
    return (
        f"{name}: {t['mix']} mix, {t['mode']}, budget {t.get('budget_s')} s, lanes {t['lanes']} ({t['gpus']} GPU): {t['candidates']} candidates in "
        f"{t['wall_s']:.1f} s = {t['evals_per_minute_wall']:.1f} per wall minute, "
        f"{per_gpu:.1f} per GPU-minute (held {held['held']:.3f} s per worker candidate: {parts}; "
        f"staging split: {staging}); statuses {t['statuses']}"
        if per_gpu
        else f"{name}: no worker time recorded; statuses {t['statuses']}"
    )


def main(folder: Path) -> dict:
    summary: dict = {"env": (folder / "env.txt").read_text().splitlines() if (folder / "env.txt").exists() else []}
    found = {name: runs(folder / name) for name in ("one_defended", "two_defended", "one_bare", "clean_defended", "clean_bare", "half_budget")}
    for name, ts in found.items():
        for t in ts:
            print(line(name, t))
        if not ts:
            print(f"{name}: no result (see {name}.log)")
    first = {name: ts[0] for name, ts in found.items() if ts}
    if "one_defended" in first and "two_defended" in first:
        summary["two_vs_one_wall"] = round(
            first["two_defended"]["evals_per_minute_wall"] / first["one_defended"]["evals_per_minute_wall"], 3
        )
        print(f"two GPUs vs one (throughput mix, defended, per wall minute): {summary['two_vs_one_wall']}x")
    for mix, (defended, bare) in {"throughput": ("one_defended", "one_bare"), "clean": ("clean_defended", "clean_bare")}.items():
        if defended in first and bare in first and first[bare]["evals_per_gpu_minute"]:
            loss = 1 - first[defended]["evals_per_gpu_minute"] / first[bare]["evals_per_gpu_minute"]
            summary[f"{mix}_defended_loss_per_gpu_minute"] = round(loss, 4)
            print(f"{mix} mix: defended {first[defended]['evals_per_gpu_minute']:.1f} vs bare "
                  f"{first[bare]['evals_per_gpu_minute']:.1f} per GPU-minute: {loss * 100:.1f}% lost to the defences")
    try:
        repeat = json.loads((folder / "repeatability" / "eval_throughput.json").read_text()).get("repeatability", [])
    except (OSError, ValueError):
        repeat = []
    for r in repeat:
        print(f"repeatability, {r['task']} over {r['runs']} evaluations: median spread {r['spread'] * 100:.2f}%, "
              f"speedup over naive spread {r['speedup_spread'] * 100:.2f}% (samples {r['samples']})")
    summary["runs"] = {name: ts for name, ts in found.items()}
    summary["repeatability"] = repeat
    (folder / "summary.json").write_text(json.dumps(summary, indent=1))
    return summary


if __name__ == "__main__":
    main(Path(sys.argv[1]))
