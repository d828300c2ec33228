"""The shipped cuda graph (regrapht/data/graphs/cuda.json): it loads and validates, every example
carries a GPU measurement, it was built from the authored trajectories, and no held-out `test` task
or best-known solution is in it.

Fast: reads files only, compiles and runs nothing."""

from __future__ import annotations

import pytest

from regrapht.graph.model import ReGraph
from regrapht.graph.relabel import OfflineRelabeler
from regrapht.graph.store import default_graph_path, dumps_graph
from regrapht.graph.taxonomy import default_taxonomy
from regrapht.graph.validate import validate_graph
from regrapht.tasks import find_task
from regrapht.tasks.suite import builtin_tasks_root

from .shipped import authored_trajectories, shipped_graph


@pytest.fixture(scope="module")
def graph():
    return shipped_graph("cuda")


@pytest.fixture(scope="module")
def authored():
    return authored_trajectories("cuda")


def test_loads_and_validates(graph) -> None:
    assert graph.target == "cuda"
    assert [str(i) for i in validate_graph(graph) if i.level == "error"] == []
    assert dumps_graph(graph) == default_graph_path("cuda").read_text(encoding="utf-8")


def test_every_example_carries_a_gpu_measurement(graph) -> None:
    for edge, example in graph.examples():
        assert example.gpu, f"{edge.key} {example.task} step {example.step}: no GPU recorded"
        if example.status == "correct":
            assert example.speedup is not None and example.speedup.value > 0, (edge.key, example.task)


def test_built_from_the_authored_trajectories(graph, authored) -> None:
    # Every trajectory on the ledger is an authored one as it stands now (an edited file would have
    # to be built again); the build may not have reached every file yet.
    assert set(graph.ledger) <= {t.hash for t in authored}
    assert all(t.target == "cuda" for t in authored)


def _normalized(code: str) -> str:
    return "".join(code.split())


def test_no_held_out_task_or_solution(graph, authored) -> None:
    tasks = {r.task for r in graph.ledger.values()}
    tasks |= {x.task for _, x in graph.examples()}
    tasks |= {t.task for t in authored}
    splits = {task: find_task(task).split for task in sorted(tasks)}
    assert set(splits.values()) <= {"example", "train"}, splits
    solutions = {
        _normalized(p.read_text()): p.parent.name
        for p in (builtin_tasks_root() / "test").glob("*/solution.cu")
    }
    assert len(solutions) >= 60
    leaked = {solutions[c] for _, x in graph.examples() if (c := _normalized(x.after)) in solutions}
    leaked |= {solutions[c] for t in authored for s in t.steps if (c := _normalized(s.code)) in solutions}
    assert not leaked, f"best-known test solutions found in the training data: {sorted(leaked)}"


def test_every_authored_step_lands_on_a_canonical_method(authored) -> None:
    # offline relabeling without embeddings: names and synonyms alone must place every step, so no
    # misspelled or unknown method name becomes a node of its own when the graph is rebuilt
    relabeler = OfflineRelabeler(embedder=None)
    empty = ReGraph("cuda")
    unknown = {
        (t.task, label.raw)
        for t in authored
        for label in relabeler.relabel([s.method for s in t.steps], empty)
        if label.is_new
    }
    assert unknown == set()


# Methods the authored trajectories take on a single task so far, each awaiting a second task.
SINGLE_TASK_METHODS = {"mixed_precision"}
# The Hopper methods promoted in issue 18's second round.
HOPPER_METHODS = {"thread_block_clusters", "tma_bulk_copy", "warp_aggregated_atomics", "programmatic_dependent_launch"}


def test_every_taught_method_is_taught_on_two_tasks(authored) -> None:
    taxonomy = default_taxonomy()
    tasks: dict[str, set[str]] = {}
    for t in authored:
        for s in t.steps:
            if s.expect_failure is None:
                res = taxonomy.resolve(s.method, "cuda")
                tasks.setdefault(res.name if res else s.method, set()).add(t.task)
    assert set(tasks) >= HOPPER_METHODS
    single = {m for m, on in tasks.items() if len(on) < 2}
    assert single <= SINGLE_TASK_METHODS, f"methods taught on one task only: {sorted(single - SINGLE_TASK_METHODS)}"
    assert len(tasks) >= 40  # the target for the graph, which can only reach what is taught
