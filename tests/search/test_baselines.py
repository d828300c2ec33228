"""The baselines on known verdicts: what each one asks the model, how it spends its budget.

The model is `ScriptedModel` (the model boundary) or the offline policy; the evaluator is
`FakeEvaluator` with known verdicts.
"""

from __future__ import annotations

from regrapht.graph.model import INITIAL
from regrapht.search import Budget, OfflinePolicy, SearchJob, make_strategy, run_searches

from .conftest import (
    FakeEvaluator,
    ScriptedModel,
    fenced,
    marked,
    offline_meta,
    other_task_evidence,
    recorded_code,
    synthetic_graph,
)


def run(task, strategy, model, table, budget=3, graph=None, seed=0, **params):
    evals = FakeEvaluator(table)
    meta = offline_meta(model) if isinstance(model, OfflinePolicy) else {"identity": model.identity}
    [result] = run_searches(
        [SearchJob(task, seed)],
        strategy=make_strategy(strategy, **params),
        target="cpu",
        budget=Budget(budget),
        model=model,
        model_meta=meta,
        evals=evals,
        graph=graph,
    )
    return result, evals


def test_standard_draws_independent_samples_of_one_prompt(axpy):
    names = iter(["S1", "S2", "S3"])
    model = ScriptedModel(lambda r, k: fenced(marked(axpy, next(names))))
    table = {"S1": ("correct", 1.5), "S2": ("wrong_answer", None), "S3": ("correct", 3.0)}
    result, evals = run(axpy, "standard", model, table, budget=3)
    assert [r.template for r in model.requests] == ["standard@1"] * 3
    assert len({tuple(m["content"] for m in r.messages) for r in model.requests}) == 1  # one prompt ...
    assert len({r.params.seed for r in model.requests}) == 3  # ... sampled with three seeds
    assert axpy.serial_source().strip() in model.requests[0].last_user_message()
    assert [a.status for a in result.attempts] == ["correct", "wrong_answer", "correct"]
    assert result.best_attempt.reward == 3.0 and evals.calls == ["S1", "S2", "S3"]
    assert result.spent.tokens == 3 * 30


def test_cot_uses_the_chain_of_thought_prompt(axpy):
    model = ScriptedModel(lambda r, k: "Loops are independent.\n" + fenced(marked(axpy, "C")))
    result, _ = run(axpy, "cot", model, {"C": ("correct", 2.0)}, budget=1)
    assert model.requests[0].template == "cot@1"
    assert "Think step by step" in model.requests[0].last_user_message()
    assert result.best_attempt.reward == 2.0


def test_rag_shows_the_nearest_trajectories_of_other_tasks(axpy, graph_cpu):
    model = ScriptedModel(lambda r, k: fenced(marked(axpy, "R")))
    run(axpy, "rag", model, {"R": ("correct", 1.0)}, budget=1, graph=graph_cpu)
    prompt = model.requests[0].last_user_message()
    assert model.requests[0].template == "rag@1"
    assert "row_sums" in prompt  # the other task's trajectory ...
    finals = [recorded_code("row_sums", author, 1).strip() for author in ("alice", "carol")]
    assert any(f in prompt for f in finals)  # ... with its last verified code
    assert "Example 2" not in prompt  # one example per task, and the task's own is excluded
    own = ScriptedModel(lambda r, k: fenced(marked(axpy, "R")))
    run(axpy, "rag", own, {"R": ("correct", 1.0)}, budget=1, graph=graph_cpu, exclude_same_task=False)
    assert "axpy_small" in own.requests[0].last_user_message().split("## Task")[0]


def test_walk_tries_a_step_at_most_five_times(axpy):
    steps = [(INITIAL, "x", "serial", "X"), (INITIAL, "y", "serial", "Y")]
    graph = synthetic_graph(axpy, steps)
    table = {"X": ("wrong_answer", None), "Y": ("compile_error", None)}
    result, _ = run(axpy, "walk", OfflinePolicy(graph), table, budget=50, graph=graph, restart=False)
    assert len(result.attempts) == 5
    assert all(a.kind == "walk" and a.parent is None and not a.correct for a in result.attempts)
    assert result.stopped == "walk ended"


def test_walk_follows_graph_edges_and_restarts(axpy):
    steps = [(INITIAL, "p", "serial", "P"), ("p", "a", "P", "PA"), ("a", "b", "PA", "PAB")]
    graph = synthetic_graph(axpy, steps)
    table = {"P": ("correct", 1.0), "PA": ("correct", 2.0), "PAB": ("correct", 4.0)}
    result, _ = run(axpy, "walk", OfflinePolicy(graph), table, budget=7, graph=graph)
    assert [a.method for a in result.attempts[:3]] == ["p", "a", "b"]
    assert [a.parent for a in result.attempts[:3]] == [None, 0, 1]
    assert result.attempts[3].parent is None  # a dead end after b: a new walk from the start
    assert result.best_attempt.reward == 4.0 and result.details["walks"] >= 2


def test_greedy_takes_the_best_prior_first_and_falls_back(axpy):
    steps = [(INITIAL, "a", "serial", "A"), (INITIAL, "b", "serial", "B"), (INITIAL, "c", "serial", "C")]
    graph = synthetic_graph(axpy, steps)
    # what other tasks recorded (the task's own examples never steer its search): b most often
    other_task_evidence(graph, INITIAL, "b", tasks=3, gain=3.0)
    other_task_evidence(graph, INITIAL, "a", tasks=1, gain=1.1)
    # the task's own record favours c: it must not matter
    graph.edge(INITIAL, "c").examples.extend(list(graph.edge(INITIAL, "c").examples) * 5)
    table = {"B": ("wrong_answer", None), "A": ("correct", 1.5), "C": ("correct", 2.0)}
    result, _ = run(axpy, "greedy", OfflinePolicy(graph), table, budget=10, graph=graph)
    assert [a.method for a in result.attempts[:2]] == ["b", "a"]  # b first; it fails; then the next best
    assert {a.method for a in result.attempts} == {"a", "b", "c"}
    assert result.best_attempt.method == "c"


def test_refine_feeds_the_verdict_back(axpy):
    answers = iter([marked(axpy, "BROKEN"), marked(axpy, "FIXED"), marked(axpy, "FASTER")])
    model = ScriptedModel(lambda r, k: fenced(next(answers)))
    table = {"FIXED": ("correct", 1.25), "FASTER": ("correct", 2.0)}  # BROKEN: a compile error
    result, _ = run(axpy, "refine", model, table, budget=3)
    templates = [r.template for r in model.requests]
    assert templates == ["standard@1", "refine@1", "refine@1"]
    second, third = (r.last_user_message() for r in model.requests[1:])
    assert (
        "It does not compile" in second and "R:BROKEN" in second and "compile_error: known verdict" in second
    )
    assert "It is correct" in third and "speedup over serial: 1.25x" in third and "R:FIXED" in third
    assert [a.parent for a in result.attempts] == [None, 0, 1]
    assert result.best_attempt.reward == 2.0


def test_contrastive_shows_measured_variants_slowest_first(axpy):
    answers = iter([marked(axpy, "V1"), marked(axpy, "V2"), marked(axpy, "V3"), marked(axpy, "V4")])
    model = ScriptedModel(lambda r, k: fenced(next(answers)))
    table = {
        "V1": ("correct", 1.5),
        "V2": ("wrong_answer", None),
        "V3": ("correct", 3.0),
        "V4": ("correct", 4.0),
    }
    result, _ = run(axpy, "contrastive", model, table, budget=4)
    assert [r.template for r in model.requests] == [
        "standard@1",
        "contrastive@1",
        "contrastive@1",
        "contrastive@1",
    ]
    last = model.requests[3].last_user_message()
    assert "1.50x speedup" in last and "3.00x speedup" in last and "wrong_answer" in last
    # failures and slower variants first: V2 (failed), V1 (1.5x), V3 (3x)
    assert last.index("R:V2") < last.index("R:V1") < last.index("R:V3")
    assert result.best_attempt.reward == 4.0


def test_whole_task_strategies_get_no_recorded_step_from_the_offline_policy(axpy):
    graph = synthetic_graph(axpy, [(INITIAL, "p", "serial", "P")])
    for name in ("standard", "cot", "refine", "contrastive"):
        result, evals = run(axpy, name, OfflinePolicy(graph), {"P": ("correct", 1.0)}, budget=2)
        assert [a.status for a in result.attempts] == ["no_recorded_step"] * 2, name
        assert evals.calls == [] and result.best is None
