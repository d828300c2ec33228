"""The shipped cpu graph (regrapht/data/graphs/cpu.json): it loads, validates, matches the authored
trajectories it was built from, never contains a task of the held-out `test` split, and carries the
authored failed attempts as labelled failure evidence that retrieval shows when asked (issue 18).

Fast: reads files only, compiles and runs nothing."""

from __future__ import annotations

import pytest

from regrapht.graph.model import INITIAL, UNPLANNED
from regrapht.graph.retrieve import retrieve_examples
from regrapht.graph.store import default_graph_path, dumps_graph
from regrapht.graph.trajectory import failure_kinds
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


def test_every_authored_failure_was_reproduced_and_labelled(graph, authored) -> None:
    # each trajectory whose last step expects a failure is merged (the evaluator reproduced it), and
    # that step sits on its edge as a failure with the kind and why its author gave
    expected = [t for t in authored if t.steps[-1].expect_failure is not None]
    assert len(expected) >= 8 and len({t.task for t in expected}) >= 4
    labelled = {(x.trajectory, x.step): x for _, x in graph.examples() if x.failure is not None}
    verdicts = failure_kinds()
    for traj in expected:
        record = graph.ledger[traj.hash]
        assert record.outcome == "merged", f"{traj.task} {traj.hash[:12]}: {record.outcome} {record.reason}"
        step = len(traj.steps) - 1
        x, planned = labelled[(traj.hash, step)], traj.steps[-1].expect_failure
        assert (x.failure.kind, x.failure.why) == (planned.kind, planned.why)
        assert verdicts[x.failure.kind]["verdict"] == "fail"
        assert x.failed and x.message.strip(), f"{traj.task} step {step}: the evaluator's verdict and message"
        assert x.speedup is None and not x.verified
    # nothing failed that was not planned: the verified chains stay intact
    assert not [x for _, x in graph.examples() if x.failure is not None and x.failure.kind == UNPLANNED]


def test_retrieval_shows_what_went_wrong_on_the_cpu_graph(graph) -> None:
    # a first parallelization of sum_of_squares: the worked examples come first, and when asked,
    # the recorded failed attempts at the same transition (a shared accumulator without reduction,
    # a private accumulator) follow as "what went wrong here"
    serial = find_task("sum_of_squares").serial_source()
    plain = retrieve_examples(graph, serial, "parallelize", source=INITIAL, k=2, budget_tokens=10**6)
    assert plain and not any(r.is_failure for r in plain)
    asked = retrieve_examples(
        graph, serial, "parallelize", source=INITIAL, k=1, failures=2, budget_tokens=10**6
    )
    failures = [r for r in asked if r.is_failure]
    assert [r.is_failure for r in asked] == [False, True, True]  # worked example first, then failures
    assert {(r.example.task, r.example.failure.kind) for r in failures} == {
        ("sum_of_squares", "lost_update"),
        ("sum_of_squares", "uninitialized"),
    }
    assert all(r.edge.key == (INITIAL, "parallelize") for r in failures)
    assert all(r.example.status == "wrong_answer" and r.example.message for r in failures)


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
