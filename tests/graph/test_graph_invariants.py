"""Invariants every shipped graph keeps (issue 18): no duplicate examples, every example verified or
a labelled failure and measured on a named machine, failure labels from the known kinds, no test
task and no near-duplicate of one (the suite's similarity screen), and retrieval that returns the
failure examples when asked.

Fast: reads files only, compiles and runs nothing."""

from __future__ import annotations

from collections import Counter

import pytest

from regrapht.graph.model import UNPLANNED
from regrapht.graph.report import leakage
from regrapht.graph.retrieve import retrieve_examples
from regrapht.graph.taxonomy import default_taxonomy
from regrapht.graph.trajectory import failure_kinds

from .shipped import shipped_graph

TARGETS = ("cuda", "cpu")


@pytest.fixture(scope="module", params=TARGETS)
def graph(request):
    return shipped_graph(request.param)


def test_no_duplicate_examples(graph) -> None:
    keys = Counter((e.source, e.target, x.before, x.after) for e, x in graph.examples())
    assert [k[:2] for k, n in keys.items() if n > 1] == []


def test_every_example_is_verified_or_a_labelled_failure_with_a_machine(graph) -> None:
    kinds = set(failure_kinds()) | {UNPLANNED}
    for edge, x in graph.examples():
        where = f"{edge.key} {x.task} step {x.step}"
        assert x.verified or x.failure is not None, f"{where}: neither verified nor a labelled failure ({x.status})"
        assert x.status != "unverified", where
        assert x.machine, f"{where}: no machine recorded"
        if x.failure is not None:
            assert x.failure.kind in kinds, where
            assert x.failure.why.strip(), f"{where}: a failure says why"
        if x.failed:
            assert x.failure is not None, f"{where}: a failing example carries its label"


def test_failure_kinds_are_counted_on_edges(graph) -> None:
    for edge in graph.edges.values():
        st = edge.stats
        assert sum(st.failure_kinds.values()) == st.failures
        assert st.failures == sum(1 for x in edge.examples if x.is_failure)


def test_no_test_task_or_near_duplicate(graph) -> None:
    found = leakage(graph)
    assert found["test_task_ids"] == []
    # the screen compares each test task with every task on the graph (train and example splits);
    # csr_diag_scale and sddmm_csr, near spmv_csr (example), moved to train (docs/suite.md)
    assert found["near_duplicates"] == []


def test_retrieval_returns_failure_examples_where_asked(graph) -> None:
    failing = [(e, x) for e, x in graph.examples() if x.is_failure]
    assert failing, f"the shipped {graph.target} graph holds no failure example"
    edge, x = failing[0]
    plain = retrieve_examples(graph, x.before, edge.target, k=3, budget_tokens=10**6)
    assert not any(r.is_failure for r in plain)
    asked = retrieve_examples(graph, x.before, edge.target, k=1, failures=2, budget_tokens=10**6)
    assert any(r.is_failure for r in asked)


def test_every_node_is_a_canonical_method_of_the_target(graph) -> None:
    # the report counts canonical methods toward the target; a teacher's own name kept as a
    # new node would be a method nobody defined (promote it in data/methods.toml instead)
    taxonomy = default_taxonomy()
    for name, node in graph.nodes.items():
        if node.origin == "initial":
            continue
        assert name in taxonomy and graph.target in taxonomy[name].targets, f"{name} ({node.origin})"
