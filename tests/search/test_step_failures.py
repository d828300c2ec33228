"""A step prompt shows other tasks' failed attempts of the method under "What went wrong here
before" when the search asks for them (StepSettings.failure_examples), and none by default."""

from __future__ import annotations

from regrapht.graph.model import INITIAL, Example, FailureLabel
from regrapht.search import Budget, OfflinePolicy, SearchContext
from regrapht.search.context import ModelInfo, StepSettings

from .conftest import marked, offline_meta, other_task_evidence, synthetic_graph

STEPS = [(INITIAL, "p", "serial", "P"), ("p", "a", "P", "PA")]


def _ctx(task, graph, failures: int) -> SearchContext:
    policy = OfflinePolicy(graph)
    return SearchContext(
        task,
        "cpu",
        strategy="mcgs",
        params={},
        budget=Budget(10),
        seed=0,
        model=offline_meta(policy),
        model_info=ModelInfo.of(policy),
        graph=graph,
        settings=StepSettings(failure_examples=failures),
    )


def test_failed_attempts_are_shown_when_asked(axpy) -> None:
    graph = synthetic_graph(axpy, STEPS)
    other_task_evidence(graph, "p", "a", tasks=1)
    graph.edge("p", "a").examples.append(
        Example(
            "other_failed", "t", "forgot the barrier", "void g() {}", "void g() { /* racy */ }", "f" * 64, 1, "a",
            status="wrong_answer", message="5 of 64 outputs differ",
            failure=FailureLabel("missing_sync", "threads read the tile before it is written"),
        )
    )
    point = _ctx(axpy, graph, 0).start.__class__(("p",), marked(axpy, "P"), None)
    plain, _ = _ctx(axpy, graph, 0).step_request(point, "a")
    assert "What went wrong here before" not in plain.last_user_message()
    asked, shown = _ctx(axpy, graph, 1).step_request(point, "a")
    text = asked.last_user_message()
    assert "What went wrong here before" in text and "missing_sync" in text and "5 of 64 outputs differ" in text
    assert any(s.startswith("other_failed") for s in shown)
