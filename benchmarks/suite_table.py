"""The task tables of docs/suite.md, from the suite's files and `regrapht tasks check --gpu --out FILE`
results.

Usage:
  PYTHONPATH=src python benchmarks/suite_table.py [--write docs/suite.md] [--root TASKS] [RESULTS.json ...]

Later results files win per task. Every task gets a row, with its split, tier and category as its
files say now. Its GPU columns come from the latest result for it; a result taken on other files
(its task_hash differs: the task changed since) is shown as stale, and a task without one as not
checked. Library columns are the candidate's speed as a fraction of library.cu's (library ms over
the candidate's ms: 1.00x matches the library). The measured tier is regrapht/bench/tiers.py's, from
solution.cu and, where a current result has them, best/naive and naive's roofline fraction; the
disagreements are listed under the tables with what each tier rests on. With --write, the output
replaces what lies between the markers in that file, and nothing else.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from regrapht.bench.tiers import audit_task
from regrapht.tasks import Task, TaskError, load_suite

ORDER = {"easy": 0, "medium": 1, "hard": 2}
SPLITS = ("test", "train", "example")
BEGIN = "<!-- suite-table:begin (benchmarks/suite_table.py writes what follows; do not edit by hand) -->"
END = "<!-- suite-table:end -->"
HEADER = (
    "| task | difficulty | category | GPU check | serial ms | naive ms | library ms | best ms | best/serial "
    "| best/naive | naive/library | best/library | naive % roofline | best % roofline | naive largest launch "
    "| measured tier |"
)


class TableError(ValueError):
    """A results file or a document the table cannot use; the message says which and why."""


def fmt(value: float | None, spec: str = ".3f", suffix: str = "") -> str:
    return "–" if value is None else f"{value:{spec}}{suffix}"


def percent(value: float | None) -> str:
    return fmt(100 * value if value else None, ".0f", "%")


def ratio(numerator: float | None, denominator: float | None) -> float | None:
    return numerator / denominator if numerator and denominator else None


def is_current(task: Task, check: dict[str, Any] | None) -> bool:
    return check is not None and check.get("task_hash") == task.content_hash()


def status(task: Task, check: dict[str, Any] | None) -> str:
    if check is None:
        return "not checked"
    if not is_current(task, check):
        return "stale (changed since)"
    if not check["ok"]:
        problems = check.get("problems") or ["(no reason recorded)"]
        return "FAIL: " + problems[0].split(":")[0][:60]
    return "pass"


def launch(measured: dict[str, Any]) -> str:
    seen = measured.get("naive_launch")
    return "–" if not seen else f"{seen['max_blocks']} blocks / {seen['sms']} SMs"


def audit(task: Task, check: dict[str, Any] | None):
    """The measured tier, with GPU measurements only from a result on the task's current files."""
    return audit_task(task, check["measured"] if is_current(task, check) else None)


def measured_tier(task: Task, check: dict[str, Any] | None) -> str:
    found = audit(task, check)
    if found is None:
        return "–"
    return found.tier + ("" if found.agrees else f" (declared {found.declared_tier})")


def row(task: Task, check: dict[str, Any] | None) -> str:
    m = check["measured"] if check else {}
    library = m.get("library_ms")
    return (
        f"| {task.id} | {task.difficulty} | {task.category} | {status(task, check)} | "
        f"{fmt(m.get('serial_ms'), '.1f')} | {fmt(m.get('naive_ms'))} | {fmt(library)} | {fmt(m.get('solution_ms'))} | "
        f"{fmt(m.get('solution_speedup_over_serial'), '.1f', 'x')} | "
        f"{fmt(m.get('solution_speedup_over_naive'), '.2f', 'x')} | "
        f"{fmt(ratio(library, m.get('naive_ms')), '.2f', 'x')} | "
        f"{fmt(m.get('solution_fraction_of_library') or ratio(library, m.get('solution_ms')), '.2f', 'x')} | "
        f"{percent(m.get('naive_roofline'))} | {percent(m.get('solution_roofline'))} | {launch(m)} | "
        f"{measured_tier(task, check)} |"
    )


def load_checks(paths: list[Path]) -> dict[str, dict[str, Any]]:
    """The latest result per task over the files, in order."""
    checks: dict[str, dict[str, Any]] = {}
    for path in paths:
        try:
            rows = json.loads(path.read_text())
        except (OSError, json.JSONDecodeError) as exc:
            raise TableError(f"{path}: cannot read a results file: {exc}") from None
        if not isinstance(rows, list) or not all(isinstance(r, dict) and "task_id" in r for r in rows):
            raise TableError(f"{path}: expected the JSON list `regrapht tasks check --out` writes")
        for check in rows:
            checks[check["task_id"]] = check | {"measured": check.get("measured") or {}}
    return checks


def render(suite: list[Task], checks: dict[str, dict[str, Any]]) -> str:
    """The summary line, one table per split, and the tasks whose measured tier disagrees."""
    gpus = sorted({c["gpu_name"] for c in checks.values() if c.get("gpu_name")})
    splits = Counter(t.split for t in suite)
    counts = ", ".join(
        f"{splits[s]} `{s}` ("
        + ", ".join(f"{n} {level}" for level in ORDER if (n := sum(t.split == s and t.difficulty == level for t in suite)))
        + ")"
        for s in SPLITS
        if splits[s]
    )
    lines = [
        f"{len(suite)} tasks: {counts}, in {len({t.category for t in suite})} categories; "
        f"GPU results from {', '.join(gpus) or 'none'}."
    ]
    for split in SPLITS:
        tasks = sorted((t for t in suite if t.split == split), key=lambda t: (ORDER[t.difficulty], t.category, t.id))
        if not tasks:
            continue
        lines += ["", f"#### {split} split ({len(tasks)} tasks)", "", HEADER, "|" + "---|" * (HEADER.count(" | ") + 1)]
        lines += [row(task, checks.get(task.id)) for task in tasks]
    disagreements = [
        f"- {t.id}: {found.describe()}"
        for t in sorted(suite, key=lambda t: t.id)
        if (found := audit(t, checks.get(t.id))) is not None and not found.agrees
    ]
    if disagreements:
        lines += ["", f"Measured tier differs from the declared one ({len(disagreements)} tasks):", ""] + disagreements
    return "\n".join(lines) + "\n"


def replace_between_markers(document: str, block: str, name: str = "the document") -> str:
    """`document` with what lies between BEGIN and END replaced by `block`."""
    if document.count(BEGIN) != 1 or document.count(END) != 1:
        raise TableError(f"{name} needs the markers once each, on lines of their own:\n{BEGIN}\n{END}")
    head, rest = document.split(BEGIN)
    if END in head:
        raise TableError(f"{name}: the end marker comes before the begin marker")
    _, tail = rest.split(END)
    return f"{head}{BEGIN}\n\n{block}\n{END}{tail}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", nargs="*", type=Path, help="tasks check --out files; later ones win per task")
    parser.add_argument("--write", type=Path, help="replace the table between the markers in this file")
    parser.add_argument("--root", type=Path, help="a folder of task folders instead of the shipped suite")
    args = parser.parse_args(argv)
    try:
        block = render(load_suite(args.root), load_checks(args.results))
        if args.write is None:
            sys.stdout.write(block)
            return 0
        args.write.write_text(replace_between_markers(args.write.read_text(), block, str(args.write)))
    except (TableError, TaskError, OSError) as exc:  # a malformed task under --root, too
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"wrote the suite table into {args.write}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
