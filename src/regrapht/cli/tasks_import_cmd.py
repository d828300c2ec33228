"""`regrapht tasks import pareval PATH`: task folders from a user's ParEval checkout, each checked."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import typer
from rich.console import Console
from rich.markup import escape

from regrapht.eval import EvalConfig
from regrapht.eval.suitecheck import check_tasks
from regrapht.tasks import TaskError, load_task
from regrapht.tasks.pareval import import_all

import_app = typer.Typer(
    help="Import another benchmark's problems (KernelBench, ParEval) as task folders.", no_args_is_help=True
)


def _commit(root: Path) -> str:
    try:
        done = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return ""
    return done.stdout.strip() if done.returncode == 0 else ""


@import_app.command("pareval")
def pareval_command(
    path: Path = typer.Argument(..., help="A ParEval checkout (github.com/parallelcodefoundry/ParEval)."),
    out: Path = typer.Option(Path("pareval-tasks"), help="Write the task folders here."),
    only: list[str] = typer.Option(None, help="Only these problems (ParEval names or task ids)."),
    check: bool = typer.Option(True, "--check/--no-check", help="Run `tasks check` (cpu side) on each."),
    as_json: bool = typer.Option(False, "--json", help="Print the report as JSON."),
) -> None:
    """Convert ParEval's CUDA problems into kernel-convention task folders, check each, and report
    what passed, what the checks found in the source benchmark, and what needs a hand."""
    console = Console(stderr=True)
    try:
        imported = import_all(path, out, set(only) if only else None)
    except FileNotFoundError as exc:
        console.print(f"[red]error:[/] {escape(str(exc))}")
        raise typer.Exit(2) from None
    rows = {r.task_id: {"problem": r.name, "task_id": r.task_id, "folder": str(r.folder or ""),
                        "needs_hand": r.needs_hand, "notes": r.notes, "check": None} for r in imported}
    tasks = []
    for r in imported:
        if r.folder is None:
            continue
        try:
            tasks.append(load_task(r.folder))
        except TaskError as exc:
            rows[r.task_id]["needs_hand"] = f"the written task does not load: {exc}"
    if check and tasks:
        for result in check_tasks(tasks, gpu=False, config=EvalConfig(timing=False)):
            rows[result.task_id]["check"] = {"ok": result.ok, "problems": result.problems}
    passed = [row for row in rows.values() if row["check"] and row["check"]["ok"]]
    commit = _commit(path)
    if as_json:
        print(json.dumps({"commit": commit, "passed": len(passed), "problems": list(rows.values())}, indent=2))
    else:
        for row in rows.values():
            if row["needs_hand"]:
                console.print(f"[yellow]needs a hand[/] {row['problem']}: {escape(row['needs_hand'])}")
            elif row["check"] is None:
                console.print(f"[cyan]written[/] {row['problem']} -> {row['folder']}")
            elif row["check"]["ok"]:
                console.print(f"[green]ok[/] {row['problem']} -> {row['folder']}")
            else:
                console.print(
                    f"[red]check failed[/] {row['problem']} -> {row['folder']}"
                    + "".join(f"\n    {escape(p.splitlines()[0] if p else p)}" for p in row["check"]["problems"])
                )
    console.print(
        f"{len(passed) if check else len(tasks)} of {len(rows)} problems "
        + ("import and pass `tasks check` (cpu side)" if check else "imported (not checked)")
        + (f"; ParEval commit {commit}" if commit else "")
    )
    raise typer.Exit(0)
