"""A single self-contained HTML page of a graph (`regrapht graph show --html OUT`).

No network: the page carries its data as JSON and its own script and style (regrapht.graph._page).
Nodes are sized by use (visits), edges drawn by measured gain (width grows with the geometric-mean
speedup; green faster, red slower, grey unmeasured). Clicking an edge lists its examples with
before/after diffs; clicking a node shows its definition. `#edge=SRC->DST` or `#node=NAME` in the
URL opens one on load. The script writes the number of drawn nodes and edges into
`#drawn-nodes` / `#drawn-edges`.
"""

from __future__ import annotations

import difflib
import html
import json
from pathlib import Path
from typing import Any

from regrapht.graph._page import PAGE_TEMPLATE
from regrapht.graph.model import ReGraph
from regrapht.graph.stats import graph_stats


def _diff(before: str, after: str) -> str:
    lines = difflib.unified_diff(
        before.splitlines(), after.splitlines(), fromfile="before", tofile="after", lineterm="", n=3
    )
    return "\n".join(lines)


def page_data(graph: ReGraph) -> dict[str, Any]:
    """The JSON the page script reads."""
    return {
        "target": graph.target,
        "initial": graph.initial,
        "stats": graph_stats(graph, top=5),
        "nodes": [
            {
                "id": name,
                "origin": node.origin,
                "category": node.category,
                "definition": node.definition,
                "visits": graph.visits(name),
            }
            for name, node in sorted(graph.nodes.items())
        ],
        "edges": [
            {
                "source": e.source,
                "target": e.target,
                "stats": e.stats.to_dict(),
                "examples": [
                    {
                        "task": x.task,
                        "step": x.step,
                        "author": x.author,
                        "raw_method": x.raw_method,
                        "status": x.status,
                        "message": x.message,
                        "speedup": None if x.speedup is None else x.speedup.to_dict(),
                        "gpu": x.gpu,
                        "think": x.think,
                        "detail": x.detail,
                        "diff": _diff(x.before, x.after),
                    }
                    for x in e.examples
                ],
            }
            for _, e in sorted(graph.edges.items())
        ],
    }


def render_html(graph: ReGraph, title: str | None = None) -> str:
    data = json.dumps(page_data(graph), ensure_ascii=False, sort_keys=True)
    data = data.replace("</", "<\\/").replace("<!--", "<\\!--")  # cannot close the <script> element
    heading = title or f"ReGraph ({graph.target})"
    return PAGE_TEMPLATE.replace("__TITLE__", html.escape(heading)).replace("__DATA__", data)


def write_html(graph: ReGraph, path: str | Path, title: str | None = None) -> Path:
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(render_html(graph, title), encoding="utf-8")
    return p
