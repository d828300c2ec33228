"""Terminal tables that keep what matters readable in an 80-column terminal.

Rich shortens any cell that does not fit with "…", which cuts the very things a user copies from a
table (task ids, method names, file paths) and the headers of narrow number columns ("pass…"). Here
nothing is cut: names and prose fold onto the next line when the terminal is too narrow, numbers
and their headers keep their width, and the box is light so the columns get the room.
"""

from __future__ import annotations

from rich import box
from rich.table import Table


def table(title: str | None = None) -> Table:
    """A table with a left-aligned title, a rule under the header and no other lines."""
    return Table(
        title=title,
        title_justify="left",
        box=box.SIMPLE_HEAD,
        show_edge=False,
        pad_edge=False,
        collapse_padding=True,
        min_width=len(title) if title else None,  # a title is not wrapped to a narrow table's width
    )


def key_column(t: Table, header: str) -> None:
    """The column a reader looks rows up by (a task id, a method, a metric): kept on one line while the
    other columns can give room, folded (never cut) when they cannot."""
    t.add_column(header, no_wrap=True, overflow="fold")


def name_column(t: Table, header: str) -> None:
    """Ids, method names, paths: whole when there is room, folded (never cut) when there is not."""
    t.add_column(header, overflow="fold")


def text_column(t: Table, header: str) -> None:
    """Prose: wraps at words, long words fold."""
    t.add_column(header, overflow="fold")


def number_column(t: Table, header: str) -> None:
    """Numbers: right-aligned, never wrapped; the column is at least as wide as its header."""
    t.add_column(header, justify="right", no_wrap=True, overflow="fold", min_width=len(header))
