from __future__ import annotations

import pytest

from regrapht.graph.build import build_graph
from regrapht.graph.merge import LabeledStep, merge_graphs, merge_trajectory
from regrapht.graph.model import INITIAL, Example, GraphError, ReGraph, TrajectoryRecord
from regrapht.graph.relabel import OfflineRelabeler
from regrapht.graph.store import dumps_graph

from .conftest import RecordedVerifier


def ex(traj: str, step: int, task: str = "t") -> Example:
    return Example(task, "think", "detail", f"{traj} before {step}", f"{traj} after {step}", traj, step, f"raw {step}")


def labeled(traj: str, methods: list[str]) -> list[LabeledStep]:
    return [LabeledStep(m, ex(traj, i)) for i, m in enumerate(methods)]


def test_algorithm_1_cases() -> None:
    g = ReGraph("cuda")
    # new node and new edge from the initial node
    path = merge_trajectory(g, labeled("h1", ["parallelize", "shared_memory_tiling"]))
    assert path == [INITIAL, "parallelize", "shared_memory_tiling"]
    assert set(g.edges) == {(INITIAL, "parallelize"), ("parallelize", "shared_memory_tiling")}
    # existing edge: the example is appended, no new edge or node
    merge_trajectory(g, labeled("h2", ["parallelize"]))
    assert len(g.edge(INITIAL, "parallelize").examples) == 2 and len(g.edges) == 2
    # existing node, new edge (a second way into shared_memory_tiling)
    merge_trajectory(g, labeled("h3", ["parallelize", "loop_unrolling", "shared_memory_tiling"]))
    assert g.has_edge("loop_unrolling", "shared_memory_tiling")
    assert len(g.nodes) == 4  # initial + 3 methods
    # cycles (a back edge) and repeated methods (a self-loop)
    merge_trajectory(
        g,
        labeled(
            "h4",
            [
                "parallelize",
                "shared_memory_tiling",
                "loop_unrolling",
                "loop_unrolling",
                "shared_memory_tiling",
            ],
        ),
    )
    assert g.has_edge("shared_memory_tiling", "loop_unrolling")
    assert g.has_edge("loop_unrolling", "loop_unrolling")
    assert len(g.edge("loop_unrolling", "shared_memory_tiling").examples) == 2
    nxg = g.to_networkx()
    import networkx as nx

    assert not nx.is_directed_acyclic_graph(nxg)
    assert g.visits("shared_memory_tiling") == 4
    # node definitions come from the taxonomy; unknown methods become "new" nodes
    assert (
        g.nodes["loop_unrolling"].origin == "taxonomy" and g.nodes["loop_unrolling"].category == "arithmetic"
    )
    merge_trajectory(
        g,
        [
            LabeledStep(
                "kahan_summation", Example("t", "", "Compensated sums. More.", "a", "b", "h5", 0, "Kahan")
            )
        ],
    )
    node = g.nodes["kahan_summation"]
    assert node.origin == "new" and node.definition == "Kahan: Compensated sums."


def test_example_order_and_ledger() -> None:
    g = ReGraph("cuda")
    rec = TrajectoryRecord("h1", "t", "a", "merged", 1, 1)
    merge_trajectory(g, labeled("h1", ["parallelize"]), rec)
    merge_trajectory(g, labeled("h2", ["parallelize"]))
    assert [x.trajectory for x in g.edge(INITIAL, "parallelize").examples] == ["h1", "h2"]
    with pytest.raises(GraphError, match="already on the graph"):
        merge_trajectory(g, labeled("h1", ["parallelize"]), rec)
    with pytest.raises(GraphError, match="initial node"):
        merge_trajectory(g, labeled("h9", ["initial"]))


def test_merging_graphs_equals_building_from_all_trajectories(trajs) -> None:
    relabel = OfflineRelabeler(embedder=None)
    verifier = RecordedVerifier(trajs)
    a, b, whole = ReGraph("cuda"), ReGraph("cuda"), ReGraph("cuda")
    build_graph(a, trajs[:2], relabel, verifier)
    build_graph(b, trajs[2:], relabel, verifier)
    build_graph(whole, trajs, relabel, verifier)
    merged = merge_graphs(a, b)
    assert dumps_graph(merged) == dumps_graph(whole)
    # idempotent: merging a graph with itself, or again, adds nothing
    assert dumps_graph(merge_graphs(merged, b)) == dumps_graph(whole)
    assert dumps_graph(merge_graphs(whole, whole)) == dumps_graph(whole)
    # inputs are untouched
    assert len(a.ledger) == 2 and len(b.ledger) == 3


def test_merging_graphs_of_different_targets_fails() -> None:
    with pytest.raises(GraphError, match="cannot merge a 'cuda' graph with a 'cpu' graph"):
        merge_graphs(ReGraph("cuda"), ReGraph("cpu"))
