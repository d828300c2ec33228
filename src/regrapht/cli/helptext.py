"""Help text that reads well at any terminal width.

Typer's rich help keeps every single line break of a docstring, so a docstring wrapped at the source's
line length breaks mid-sentence again in an 80-column terminal. Paragraphs are joined into one line
each here, and rich wraps them to the terminal; indented lines (examples) and click's `\\b` blocks
keep their breaks.
"""

from __future__ import annotations

import inspect
import re

import typer


def reflow(text: str) -> str:
    """`text` with each prose paragraph on one line; indented lines and `\\b` blocks kept as written."""
    paragraphs = re.split(r"\n\s*\n", inspect.cleandoc(text))
    out = []
    for para in paragraphs:
        lines = para.splitlines()
        if para.startswith("\b") or any(line.startswith((" ", "\t")) for line in lines):
            out.append(para)
        else:
            out.append(" ".join(line.strip() for line in lines))
    return "\n\n".join(out)


def reflow_help(app: typer.Typer) -> None:
    """Reflow the help of `app`, its commands and its command groups, recursively."""
    if isinstance(app.info.help, str):
        app.info.help = reflow(app.info.help)
    for command in app.registered_commands:
        text = command.help or (inspect.getdoc(command.callback) if command.callback else None)
        if text:
            command.help = reflow(text)
    for group in app.registered_groups:
        if isinstance(group.help, str):
            group.help = reflow(group.help)
        if group.typer_instance is not None:
            reflow_help(group.typer_instance)
