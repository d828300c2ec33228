"""The `regrapht` command line. It only wires: every command lives in a module of its own that
imports the layer it drives and registers itself on the shared app."""

from __future__ import annotations

import importlib

import typer

from regrapht.cli.helptext import reflow_help

app = typer.Typer(
    name="regrapht",
    help=(
        "Turn serial C++ into fast, verified CUDA with small local models.\n\n"
        "Start with `regrapht doctor` to see what this machine can run, then "
        "`regrapht eval TASK CANDIDATE` to judge a kernel."
    ),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

# Each module defines register(app). Add new command modules here.
COMMAND_MODULES = (
    "regrapht.cli.doctor_cmd",
    "regrapht.cli.eval_cmd",
    "regrapht.cli.tasks_cmd",
    "regrapht.cli.llm_cmd",
    "regrapht.cli.graph_cmd",
    "regrapht.cli.search_cmd",
    "regrapht.cli.rl_cmd",
)

for _name in COMMAND_MODULES:
    importlib.import_module(_name).register(app)
reflow_help(app)


def main() -> None:
    app()
