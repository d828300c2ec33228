"""Loading a shipped graph and the authored trajectories it is built from (shared by the tests of
each target's shipped graph)."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from regrapht.graph.model import ReGraph
from regrapht.graph.store import default_graph_path, load_graph
from regrapht.graph.trajectory import Trajectory, read_trajectories


def shipped_graph(target: str) -> ReGraph:
    path = default_graph_path(target)
    assert path.is_file(), f"the shipped {target} graph is missing: {path}"
    return load_graph(path)


def authored_trajectories(target: str) -> list[Trajectory]:
    folder = Path(str(resources.files("regrapht") / "data" / "trajectories" / target))
    files = sorted(folder.glob("*.jsonl"))
    assert files, f"no authored {target} trajectories under {folder}"
    return [t for f in files for _, t in read_trajectories(f)]
