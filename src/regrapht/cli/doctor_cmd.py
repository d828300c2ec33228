"""`regrapht doctor`: what this machine can run."""

from __future__ import annotations

import json

import typer
from rich.console import Console
from rich.markup import escape

from regrapht import doctor, tables


def register(app: typer.Typer) -> None:
    app.command("doctor")(doctor_command)


def doctor_command(as_json: bool = typer.Option(False, "--json", help="Print the checks as JSON.")) -> None:
    """Report GPUs, driver, CUDA, nvcc, g++/OpenMP, PyTorch and optional extras, with a fix for each gap."""
    checks = doctor.run_checks()
    if as_json:
        print(json.dumps([c.to_dict() for c in checks], indent=2))
        return
    table = tables.table("regrapht doctor")
    tables.key_column(table, "check")
    tables.name_column(table, "status")
    for column in ("detail", "needed for"):
        tables.text_column(table, column)
    for c in checks:
        table.add_row(
            escape(c.name),
            "[green]ok[/]" if c.ok else "[yellow]missing[/]",
            escape(c.detail),
            escape(c.required_for),
        )
    console = Console()
    console.print(table)
    gaps = [c for c in checks if not c.ok and c.fix]
    if gaps:
        # below the table, one line each: a command folded into a narrow column cannot be copied
        console.print("\n[bold]to fix:[/]")
        for c in gaps:
            console.print(f"  {escape(c.name)}: {escape(c.fix)}", soft_wrap=True)
