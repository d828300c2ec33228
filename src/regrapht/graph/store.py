"""Loading and saving graph files (JSON, schema-versioned, stable ordering).

Ordering rules, so that two saves of the same graph are byte-identical and diffs stay readable:
the initial node first, then nodes by name; edges by (source, target); the examples of an edge in the
order they were merged; the trajectory ledger by (task, hash). Statistics are rounded to 4 digits.
"""

from __future__ import annotations

import json
import os
import tempfile
from importlib import resources
from pathlib import Path
from typing import Any

from regrapht.graph.model import INITIAL, Edge, Example, Node, ReGraph, TrajectoryRecord
from regrapht.graph.validate import SCHEMA, SCHEMA_VERSION, Issue, validate_graph_dict


class GraphFormatError(ValueError):
    """A graph file failed validation; `issues` lists every error found."""

    def __init__(self, source: str, issues: list[Issue]) -> None:
        errors = [i for i in issues if i.level == "error"]
        shown = "\n  ".join(str(i) for i in errors[:20])
        more = f"\n  ... and {len(errors) - 20} more" if len(errors) > 20 else ""
        super().__init__(f"{source} is not a valid graph file:\n  {shown}{more}")
        self.issues = issues


def graph_to_dict(graph: ReGraph) -> dict[str, Any]:
    nodes = [graph.nodes[INITIAL], *(graph.nodes[n] for n in graph.method_nodes())]
    return {
        "schema": SCHEMA,
        "version": SCHEMA_VERSION,
        "target": graph.target,
        "initial": graph.initial,
        "nodes": [
            {
                "method": n.method,
                "origin": n.origin,
                "category": n.category,
                "visits": graph.visits(n.method),
                "definition": n.definition,
            }
            for n in nodes
        ],
        "edges": [
            {
                "source": e.source,
                "target": e.target,
                "stats": e.stats.to_dict(),
                "examples": [x.to_dict() for x in e.examples],
            }
            for _, e in sorted(graph.edges.items())
        ],
        "trajectories": [r.to_dict() for r in sorted(graph.ledger.values(), key=lambda r: (r.task, r.hash))],
    }


def graph_from_dict(data: Any, source: str = "<graph>") -> ReGraph:
    """Build a graph from a parsed document; raises GraphFormatError listing every error."""
    issues = validate_graph_dict(data)
    if any(i.level == "error" for i in issues):
        raise GraphFormatError(source, issues)
    g = ReGraph(data["target"])
    for n in data["nodes"]:
        if n["method"] == INITIAL:
            g.nodes[INITIAL].definition = n["definition"]
            continue
        g.add_node(Node(n["method"], n["definition"], n.get("category"), n["origin"]))
    for e in data["edges"]:
        edge = Edge(e["source"], e["target"], [Example.from_dict(x) for x in e["examples"]])
        g.edges[edge.key] = edge
    for t in data.get("trajectories", []):
        rec = TrajectoryRecord.from_dict(t)
        g.ledger[rec.hash] = rec
    g.dedupe()  # a format-1 file may hold one step twice on an edge
    return g


def dumps_graph(graph: ReGraph) -> str:
    return json.dumps(graph_to_dict(graph), indent=1, ensure_ascii=False) + "\n"


def loads_graph(text: str, source: str = "<graph>") -> ReGraph:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise GraphFormatError(
            source, [Issue("error", f"line {exc.lineno} column {exc.colno}", exc.msg)]
        ) from exc
    return graph_from_dict(data, source)


def save_graph(graph: ReGraph, path: str | Path) -> Path:
    """Write atomically (temporary file + rename), so an interrupted build never leaves half a file."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    text = dumps_graph(graph)
    fd, tmp = tempfile.mkstemp(prefix=p.name + ".", suffix=".tmp", dir=p.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        # mkstemp creates the file private (0600); a graph is data others read, so use the umask default.
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, p)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return p


def load_graph(path: str | Path) -> ReGraph:
    p = Path(path)
    return loads_graph(p.read_text(encoding="utf-8"), str(p))


def default_graph_path(target: str = "cuda") -> Path:
    """Where the shipped graph for `target` lives: regrapht/data/graphs/{target}.json (may not exist)."""
    return Path(str(resources.files("regrapht").joinpath("data", "graphs", f"{target}.json")))
