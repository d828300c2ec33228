"""The search simulator: its rates reproduce the recorded data, its draws are independent and
reproducible, and its failed attempts are code that every evaluator rejects."""

from __future__ import annotations

import dataclasses

import pytest

from regrapht.graph.model import INITIAL
from regrapht.search import Budget, SearchContext, SearchJob, make_strategy, run_searches
from regrapht.search.context import ModelInfo, Point
from regrapht.search.evaluate import EvalRequest
from regrapht.search.simulator import FAILURE_MARK, SimRates, SimulatedPolicy, TruthTableEvals

from .conftest import marked, other_task_evidence, synthetic_graph

STEPS = [(INITIAL, "p", "serial", "P"), ("p", "a", "P", "PA"), ("p", "b", "P", "PB")]


def _ctx(task, graph, policy):
    return SearchContext(
        task,
        "cpu",
        strategy="mcgs",
        params={},
        budget=Budget(10),
        seed=0,
        model={"identity": policy.identity},
        model_info=ModelInfo.of(policy),
        graph=graph,
    )


def _answers(policy, ctx, point, method, n):
    """n draws of one request, each with its own seed (as a search's repeated requests are)."""
    request, _ = ctx.step_request(point, method)
    out = []
    for i in range(n):
        asked = dataclasses.replace(request, params=dataclasses.replace(request.params, seed=i))
        [result] = policy.generate([asked])
        out.append(result.text)
    return out


def test_rates_are_fitted_from_the_recorded_attempts(axpy):
    graph = synthetic_graph(axpy, STEPS)
    rates = SimRates.fit(graph)
    assert rates.pooled == pytest.approx((3 + 1) / (3 + 2))
    failing = synthetic_graph(axpy, STEPS, statuses={"PB": ("wrong_answer", None)})
    assert SimRates.fit(failing).pooled == pytest.approx((2 + 1) / (3 + 2))
    # an edge's rate is its own record shrunk towards the pooled rate
    stats = failing.edge("p", "b").stats
    expected = (0 + 2 * SimRates.fit(failing).pooled) / (1 + 2)
    assert SimRates.fit(failing).recorded_success(stats) == pytest.approx(expected)
    with pytest.raises(ValueError, match="unchanged"):
        SimRates.fit(graph, unchanged=1.5)


@pytest.mark.parametrize("skill", [1.0, 0.6])
def test_recorded_steps_succeed_at_the_fitted_rate(axpy, skill):
    graph = synthetic_graph(axpy, STEPS)
    rates = SimRates.fit(graph, skill=skill)
    policy = SimulatedPolicy(graph, rates, seed=1)
    ctx = _ctx(axpy, graph, policy)
    point = Point(("p",), marked(axpy, "P"), 0)
    answers = _answers(policy, ctx, point, "a", 1500)
    share = sum("R:PA" in a for a in answers) / len(answers)
    assert share == pytest.approx(rates.recorded_success(graph.edge("p", "a").stats), abs=0.04)
    assert all(("R:PA" in a) != (FAILURE_MARK in a) for a in answers)  # success or a failed attempt
    draws = policy.describe()["draws"]
    assert draws["recorded"] == sum("R:PA" in a for a in answers)
    assert draws["recorded_failed"] == len(answers) - draws["recorded"]


def test_unrecorded_steps_give_back_the_code_or_fail_at_the_set_rate(axpy):
    graph = synthetic_graph(axpy, STEPS)
    policy = SimulatedPolicy(graph, SimRates.fit(graph, unchanged=0.3), seed=2)
    ctx = _ctx(axpy, graph, policy)
    point = Point(("a",), marked(axpy, "PA"), 1)  # a recorded kernel; nothing recorded from it
    answers = _answers(policy, ctx, point, "b", 1500)
    unchanged = sum(FAILURE_MARK not in a and "R:PA" in a for a in answers) / len(answers)
    assert unchanged == pytest.approx(0.3, abs=0.04)
    assert not any("R:PB" in a for a in answers)  # never a recorded kernel it did not record
    # from code that is no recorded kernel (the serial code), an unrecorded step always fails
    serial = Point((INITIAL,), axpy.serial_source(), None)
    assert all(FAILURE_MARK in a for a in _answers(policy, ctx, serial, "a", 50))


def test_draws_are_reproducible_and_depend_on_the_simulator_seed(axpy):
    graph = synthetic_graph(axpy, STEPS)
    rates = SimRates.fit(graph, skill=0.5)
    point = Point(("p",), marked(axpy, "P"), 0)
    one = SimulatedPolicy(graph, rates, seed=3)
    ctx = _ctx(axpy, graph, one)
    first = _answers(one, ctx, point, "a", 40)
    assert _answers(SimulatedPolicy(graph, rates, seed=3), ctx, point, "a", 40) == first
    assert _answers(SimulatedPolicy(graph, rates, seed=4), ctx, point, "a", 40) != first
    assert SimulatedPolicy(graph, rates, seed=3).identity != SimulatedPolicy(graph, rates, seed=4).identity


def test_only_step_requests_are_answered(axpy):
    graph = synthetic_graph(axpy, STEPS)
    policy = SimulatedPolicy(graph)
    ctx = _ctx(axpy, graph, policy)
    [result] = policy.generate(
        [
            ctx.request(
                "standard",
                {
                    "task": {
                        "name": "x",
                        "description": "",
                        "function_name": "f",
                        "source": "",
                        "convention": "device",
                        "requirements": [],
                    },
                    "target": "cpu",
                },
            )
        ]
    )
    assert result.finish_reasons == ("no_recorded_step",)


def _report(task, table, policy=None):
    """A ground-truth report of `table`'s kernels, keyed as a search reads them from `policy`."""
    from regrapht.search.record import code_hash

    read = (lambda code: policy.replay.replayed_code(code, task.function)) if policy else (lambda code: code)
    rows = [
        {"sha": code_hash(read(code)), "status": status, "reward": speedup, "speedup": speedup, "ci_low": speedup}
        for code, (status, speedup) in table.items()
    ]
    return {"machine": "gpu:test", "eval_config": {}, "tasks": {task.id: {"kernels": rows}}}


def test_the_truth_table_answers_failed_attempts_as_compile_errors_and_refuses_strangers(axpy):
    evals = TruthTableEvals(_report(axpy, {marked(axpy, "P"): ("correct", 3.0)}))
    failed = marked(axpy, "P") + FAILURE_MARK + " (draw 0.5)\n"
    [known, bad] = evals.evaluate_many(
        [EvalRequest(axpy, marked(axpy, "P"), "cpu"), EvalRequest(axpy, failed, "cpu")]
    )
    assert known.evaluation.status == "correct" and known.evaluation.speedups["serial"]["value"] == 3.0
    assert bad.evaluation.status == "compile_error" and bad.evaluation.reward == -1.0
    with pytest.raises(LookupError, match="not in the replayed report"):
        evals.evaluate_many([EvalRequest(axpy, marked(axpy, "Q"), "cpu")])


def test_a_search_runs_in_the_simulator_end_to_end(axpy):
    graph = synthetic_graph(axpy, STEPS)
    table = {
        marked(axpy, "P"): ("correct", 2.0),
        marked(axpy, "PA"): ("correct", 3.0),
        marked(axpy, "PB"): ("correct", 5.0),
    }
    for source, target in ((INITIAL, "p"), ("p", "a"), ("p", "b")):
        other_task_evidence(graph, source, target, tasks=2)  # evidence, so a failed draw may be retried
    policy = SimulatedPolicy(graph, SimRates.fit(graph, skill=0.7))
    [result] = run_searches(
        [SearchJob(axpy, 0)],
        strategy=make_strategy("mcgs"),
        target="cpu",
        budget=Budget(12),
        model=policy,
        model_meta={"identity": policy.identity, "offline": True, "label": policy.label},
        evals=TruthTableEvals(_report(axpy, table, policy)),
        graph=graph,
    )
    assert result.best_attempt is not None and result.best_attempt.reward == 5.0
    assert {a.status for a in result.attempts} <= {"correct", "compile_error"}
