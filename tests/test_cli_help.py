"""Every command's --help as a newcomer reads it in an 80-column terminal: sentences wrap only where
the line is full, examples fit on one line, parse, and name files that exist."""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from regrapht.cli import app

runner = CliRunner()
WIDTH = 80
REPO = Path(__file__).resolve().parents[1]


def _commands() -> list[tuple[list[str], Any]]:
    """(path, click command) of every command and group; typer may vendor click, so groups are
    recognised by their `commands`."""
    found: list[tuple[list[str], Any]] = []

    def walk(path: list[str], cmd: Any) -> None:
        found.append((path, cmd))
        if hasattr(cmd, "commands"):
            for name, sub in cmd.commands.items():
                walk([*path, name], sub)

    walk([], typer.main.get_command(app))
    return found


COMMANDS = _commands()
COMMANDS_BY_NAME = [(" ".join(p), c) for p, c in COMMANDS]


def _help(path: list[str]) -> str:
    result = runner.invoke(app, [*path, "--help"], env={"COLUMNS": str(WIDTH), "TERMINAL_WIDTH": str(WIDTH)})
    assert result.exit_code == 0, result.output
    return result.output


def _description(text: str) -> list[str]:
    """The lines of the help's prose, between the usage line and the first panel."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if "Usage:" in line) + 1
    end = next((i for i, line in enumerate(lines) if line.lstrip().startswith("╭")), len(lines))
    return [line.rstrip() for line in lines[start:end]]


@pytest.mark.parametrize("path", [p for p, _ in COMMANDS], ids=lambda p: " ".join(p) or "regrapht")
def test_help_prose_breaks_only_where_the_line_is_full(path: list[str]) -> None:
    lines = _description(_help(path))
    for line, following in zip(lines, lines[1:]):
        if not line.strip() or not following.strip() or following.startswith("   "):
            continue  # a paragraph ends, or an indented block (examples, tables) keeps its own breaks
        next_word = following.split()[0]
        assert len(line) + 1 + len(next_word) > WIDTH - 2, f"broken early:\n{line}\n{following}"


@pytest.mark.parametrize("path", [p for p, _ in COMMANDS], ids=lambda p: " ".join(p) or "regrapht")
def test_help_cuts_no_text(path: list[str]) -> None:
    text = _help(path)
    # typer's option-name column (outside our control) may cut a long option name; nothing else may be cut
    cut = [line for line in text.splitlines() if "…" in line and not re.search(r"--[\w-]+…", line)]
    assert not cut, "\n".join(cut)


def _examples() -> list[tuple[str, list[str]]]:
    out = []
    for path, cmd in COMMANDS:
        for line in (cmd.help or "").splitlines():
            if line.strip().startswith("regrapht ") and line.startswith(" "):
                out.append((line.strip(), path))
    return out


def test_there_are_examples() -> None:
    assert {" ".join(p) for _, p in _examples()} >= {"optimize", "bench", "eval"}


@pytest.mark.parametrize("example,path", _examples(), ids=[e for e, _ in _examples()])
def test_help_examples_fit_use_real_options_and_name_real_files(example: str, path: list[str]) -> None:
    assert len(example) + 3 <= WIDTH, f"wraps at {WIDTH} columns: {example}"
    words = shlex.split(example)[1:]
    assert words[: len(path)] == path
    command = dict(COMMANDS_BY_NAME)[" ".join(path)]
    known = {opt for param in command.params for opt in (*param.opts, *param.secondary_opts)}
    args = words[len(path) :]
    for i, word in enumerate(args):
        if word.startswith("-"):
            assert word in known, f"{example}: no option {word}"
        if word in ("--graph", "-g"):
            graph = args[i + 1]
            assert Path(graph).is_file() or (REPO / graph).is_file(), f"{example}: no graph file {graph}"
