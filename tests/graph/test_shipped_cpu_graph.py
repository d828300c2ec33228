"""The shipped cpu graph (regrapht/data/graphs/cpu.json): it loads, validates, matches the authored
trajectories it was built from, and never contains a task of the held-out `test` split.

Fast: reads files only, compiles and runs nothing."""

from __future__ import annotations

import pytest

from regrapht.graph.model import INITIAL
from regrapht.graph.store import default_graph_path, dumps_graph
from regrapht.graph.validate import validate_graph
from regrapht.tasks import find_task

from .shipped import authored_trajectories, shipped_graph


@pytest.fixture(scope="module")
def graph():
    return shipped_graph("cpu")


@pytest.fixture(scope="module")
def authored():
    return authored_trajectories("cpu")


def test_loads_and_validates(graph) -> None:
    assert graph.target == "cpu"
    errors = [str(i) for i in validate_graph(graph) if i.level == "error"]
    assert errors == []
    assert graph.edges, "the shipped graph has no edges"
    # every trajectory starts from the initial node with a first parallelization
    assert any(src == INITIAL for src, _ in graph.edges)


def test_file_is_canonical(graph) -> None:
    # a save of the loaded graph is byte-identical to the shipped file (sorted, rounded, indent 1)
    assert dumps_graph(graph) == default_graph_path("cpu").read_text(encoding="utf-8")


def test_no_held_out_task(graph, authored) -> None:
    tasks = {r.task for r in graph.ledger.values()}
    tasks |= {x.task for e in graph.edges.values() for x in e.examples}
    tasks |= {t.task for t in authored}
    splits = {task: find_task(task).split for task in sorted(tasks)}
    assert not [t for t, s in splits.items() if s == "test"], splits
    assert set(splits.values()) <= {"example", "train"}, splits


def test_built_from_the_shipped_trajectories(graph, authored) -> None:
    # the graph and the trajectory files agree: every authored trajectory is on the ledger (the
    # graph was rebuilt after the last edit) and nothing else is
    assert {t.hash for t in authored} == set(graph.ledger)
    assert all(t.target == "cpu" for t in authored)
    assert all(r.outcome != "dropped" for r in graph.ledger.values())


def test_saved_graphs_are_readable_by_others(tmp_path):
    import os
    import stat

    from regrapht.graph.model import ReGraph
    from regrapht.graph.store import save_graph

    old = os.umask(0o022)
    try:
        path = save_graph(ReGraph("cpu"), tmp_path / "g.json")
    finally:
        os.umask(old)
    assert stat.S_IMODE(path.stat().st_mode) == 0o644
