"""MCGS on small synthetic graphs with known rewards: prior-guided selection, dives that join the
tree, backpropagation, resampling rules, cycles, interval-aware best, leave-task-out priors, budgets.

The model is the offline policy (a real component) replaying the synthetic graph's recorded steps,
or a scripted model at the model boundary; the evaluator is `FakeEvaluator`, the boundary of the
unit under test, with known verdicts.
"""

from __future__ import annotations

import math
from collections import Counter

import pytest

from regrapht.graph.model import INITIAL
from regrapht.search import (
    MCGS,
    Budget,
    OfflinePolicy,
    SearchContext,
    SearchJob,
    make_strategy,
    puct,
    run_searches,
)
from regrapht.search.context import ModelInfo
from regrapht.search.driver import Run, drive
from regrapht.search.mcgs import _Search

from .conftest import (
    FakeEvaluator,
    ScriptedModel,
    fenced,
    marked,
    offline_meta,
    other_task_evidence,
    synthetic_graph,
)

# initial -> p -> {a, b, c}; a <-> b (a cycle of methods); a -> a (a self-loop). Rewards are speedups.
STEPS = [
    (INITIAL, "p", "serial", "P"),
    ("p", "a", "P", "PA"),
    ("p", "b", "P", "PB"),
    ("p", "c", "P", "PC"),
    ("a", "b", "PA", "PAB"),
    ("b", "a", "PB", "PBA"),
    ("a", "a", "PA", "PA2"),
]
TABLE = {
    "P": ("correct", 1.0),
    "PA": ("correct", 2.0),
    "PB": ("correct", 5.0),
    "PC": ("wrong_answer", None),
    "PAB": ("correct", 8.0),
    "PBA": ("correct", 3.0),
    "PA2": ("correct", 2.5),
}


def run(task, graph, table, budget=12, seed=0, model=None, strategy="mcgs", temperature=None, **params):
    evals = FakeEvaluator(table)
    policy = model or OfflinePolicy(graph)
    meta = offline_meta(policy) if isinstance(policy, OfflinePolicy) else {"identity": policy.identity}
    kwargs = {}
    if temperature is not None:
        from regrapht.llm.types import SamplingParams
        from regrapht.search.context import StepSettings

        kwargs["settings"] = StepSettings(sampling=SamplingParams(temperature=temperature, max_tokens=512))
    [result] = run_searches(
        [SearchJob(task, seed)],
        strategy=make_strategy(strategy, **params),
        target="cpu",
        budget=budget if isinstance(budget, Budget) else Budget(budget),
        model=policy,
        model_meta=meta,
        evals=evals,
        graph=graph,
        **kwargs,
    )
    return result, evals


def _ctx(task, graph, budget=10, seed=0):
    policy = OfflinePolicy(graph)
    return SearchContext(
        task,
        "cpu",
        strategy="mcgs",
        params={},
        budget=Budget(budget),
        seed=seed,
        model=offline_meta(policy),
        model_info=ModelInfo.of(policy),
        graph=graph,
    )


def internal_search(task, graph, table, budget=12, seed=0, **params):
    """Run MCGS and hand back its search object, to look at the tree."""
    ctx = _ctx(task, graph, budget, seed)
    search = _Search(MCGS(**params), ctx)
    drive([Run(ctx, search.run())], OfflinePolicy(graph), FakeEvaluator(table))
    return search, ctx.result


def test_puct_is_q_plus_the_prior_weighted_exploration_term():
    assert puct(0.5, 0.2, 8, 2, c=1.0) == pytest.approx(0.5 + 0.2 * math.sqrt(9) / 3)
    assert puct(0.5, 0.2, 8, 2, c=2.0) == pytest.approx(0.5 + 2 * 0.2 * math.sqrt(9) / 3)
    # an untried slot is scored by its prior alone, and a larger prior is tried first
    assert puct(0.0, 0.4, 0, 0, 1.0) > puct(0.0, 0.1, 0, 0, 1.0) > 0


def test_priors_come_from_the_other_tasks_only(axpy):
    """Leave-task-out: the searched task's own examples never move its priors; another task's do."""
    graph = synthetic_graph(axpy, STEPS)
    ctx = _ctx(axpy, graph)
    p_point = ctx.start.__class__(("p",), "code", None)
    before = {m: ctx.prior(p_point, m) for m in "abc"}
    assert before["a"] == before["b"] == before["c"]  # only the task's own examples: no evidence
    assert ctx.edge_evidence(p_point, "a")[1] == 0
    # more of the task's own examples on p -> a change nothing
    graph.edge("p", "a").examples.extend(list(graph.edge("p", "a").examples) * 3)
    assert {m: _ctx(axpy, graph).prior(p_point, m) for m in "abc"} == before
    other_task_evidence(graph, "p", "c", tasks=3)
    after = _ctx(axpy, graph)
    assert after.prior(p_point, "c") > after.prior(p_point, "a")
    assert after.edge_evidence(p_point, "c")[1] == 3


def test_step_prompts_never_show_the_task_its_own_examples(axpy):
    graph = synthetic_graph(axpy, STEPS)
    other_task_evidence(graph, "p", "a", tasks=2)
    ctx = _ctx(axpy, graph)
    point = ctx.start.__class__(("p",), marked(axpy, "P"), None)
    request, shown = ctx.step_request(point, "a")
    assert shown and all(s.startswith("other_a_") for s in shown)
    text = request.last_user_message()
    assert "R:PA" not in text  # the task's own recorded `after` is not in the prompt
    # without other tasks' examples, the prompt shows none rather than the task's own
    request, shown = ctx.step_request(point, "b")
    assert shown == () and "R:PB" not in request.last_user_message()


def test_untried_methods_are_tried_in_prior_order(axpy):
    graph = synthetic_graph(axpy, STEPS)
    other_task_evidence(graph, "p", "c", tasks=1)
    other_task_evidence(graph, "p", "b", tasks=4)
    other_task_evidence(graph, "p", "a", tasks=2)
    result, _ = run(axpy, graph, TABLE, budget=12, step_cap=0, max_samples=1)
    from_p = [a.method for a in result.attempts if a.parent == 0]
    assert from_p[:3] == ["b", "a", "c"]


def test_a_prior_guides_the_search_to_a_known_optimum_sooner(axpy):
    """A wide node with one good successor: the graph's prior finds it at once; uniform does not."""
    wide = [(INITIAL, "p", "serial", "P"), ("p", "m9", "P", "BEST")]
    wide += [("p", f"m{i}", "P", f"X{i}") for i in range(9)]
    table = {"P": ("correct", 1.0), "BEST": ("correct", 20.0)}
    table |= {f"X{i}": ("correct", 0.9) for i in range(9)}
    graph = synthetic_graph(axpy, wide)
    other_task_evidence(graph, "p", "m9", tasks=6, gain=3.0)

    def generations_to_best(**params):
        result, _ = run(axpy, graph, table, budget=11, **params)
        return next(i for i, a in enumerate(result.attempts) if a.reward == 20.0) + 1

    assert generations_to_best() == 2
    assert generations_to_best(prior="uniform") > 2


def test_code_the_recognizer_misplaces_is_ranked_by_the_method_that_made_it(axpy):
    """`parallelize` is a method the cpu recognizer can see; the stub kernel that applying it gives
    has no OpenMP in it, so the recognizer places it at the initial node. What comes next is still
    ranked by what followed `parallelize` (here `a`), not by the initial node's successors, which
    more tasks took; those stay possible steps."""
    steps = [
        (INITIAL, "parallelize", "serial", "P"),
        ("parallelize", "a", "P", "PA"),
        (INITIAL, "z", "serial", "Z"),
    ]
    table = {"P": ("correct", 2.0), "PA": ("correct", 6.0), "Z": ("correct", 1.5)}
    graph = synthetic_graph(axpy, steps)
    other_task_evidence(graph, INITIAL, "parallelize", tasks=4)
    other_task_evidence(graph, INITIAL, "z", tasks=3)
    other_task_evidence(graph, "parallelize", "a", tasks=1)
    result, _ = run(axpy, graph, table, budget=3, epsilon=0.0)
    made = result.attempts[0]
    assert made.method == "parallelize" and tuple(made.position) == (INITIAL,)  # misplaced
    assert [a.method for a in result.attempts[:2]] == ["parallelize", "a"]
    assert result.best_attempt.reward == 6.0

    ctx = _ctx(axpy, graph)
    point = ctx.start.__class__((INITIAL,), marked(axpy, "P"), 0, method="parallelize")
    assert ctx.prior_nodes(point) == ("parallelize",)
    assert {"a", "z", "parallelize"} <= set(ctx.successors(point))
    assert ctx.prior(point, "a") > ctx.prior(point, "z") == 0.0
    # code the recognizer places where its method is (or the starting code) ranks from its position
    assert ctx.prior_nodes(ctx.start.__class__(("a",), "code", 1, method="a")) == ("a",)
    assert ctx.prior_nodes(ctx.start) == ctx.start.position


def test_where_a_prior_comes_from_is_not_decided_by_the_searched_tasks_own_steps(axpy):
    """Only the searched task took `parallelize -> a`: under leave-task-out, `parallelize` has no way
    out that other teachers took, so misplaced code made by `parallelize` ranks from its position."""
    steps = [(INITIAL, "parallelize", "serial", "P"), ("parallelize", "a", "P", "PA"), (INITIAL, "z", "serial", "Z")]
    graph = synthetic_graph(axpy, steps)
    other_task_evidence(graph, INITIAL, "parallelize", tasks=4)
    other_task_evidence(graph, INITIAL, "z", tasks=3)
    ctx = _ctx(axpy, graph)
    point = ctx.start.__class__((INITIAL,), marked(axpy, "P"), 0, method="parallelize")
    assert ctx.prior_nodes(point) == (INITIAL,)
    other_task_evidence(graph, "parallelize", "a", tasks=1)
    assert _ctx(axpy, graph).prior_nodes(point) == ("parallelize",)


def test_a_method_whose_answer_had_no_code_is_never_asked_again(axpy):
    """The offline policy has no step for most (code, method) pairs: each is asked once, and the
    search ends with budget left instead of re-asking dead edges."""
    graph = synthetic_graph(axpy, STEPS)
    for m in "abc":
        other_task_evidence(graph, "p", m, tasks=2)
    result, _ = run(axpy, graph, TABLE, budget=60, temperature=0.7)
    asked = Counter((a.parent, a.method) for a in result.attempts if a.status == "no_recorded_step")
    assert asked and max(asked.values()) == 1
    assert result.spent.generations < 60
    assert result.stopped == "search space exhausted"


def test_resampling_needs_evidence_code_and_temperature(axpy):
    code = marked(axpy, "P")
    seeds: list[int] = []

    def answer(request, k):
        seeds.append(request.params.seed)
        # the first sample does not compile; asked again (a new seed), the model gets it right
        return fenced(code if len(seeds) > 1 else marked(axpy, "BROKEN"))

    graph = synthetic_graph(axpy, [(INITIAL, "p", "serial", "P")])
    other_task_evidence(graph, INITIAL, "p", tasks=3)
    result, _ = run(
        axpy, graph, {"P": ("correct", 2.0)}, budget=5, model=ScriptedModel(answer), temperature=0.7
    )
    assert [(a.method, a.sample, a.status) for a in result.attempts[:2]] == [
        ("p", 0, "compile_error"),
        ("p", 1, "correct"),
    ]
    # greedy sampling (temperature 0): another sample would be the same answer
    seeds.clear()
    greedy, _ = run(
        axpy, graph, {"P": ("correct", 2.0)}, budget=5, model=ScriptedModel(answer), temperature=0.0
    )
    assert len(greedy.attempts) == 1 and greedy.stopped == "search space exhausted"
    # no evidence from other tasks for the edge: not asked again either
    bare = synthetic_graph(axpy, [(INITIAL, "p", "serial", "P")])
    seeds.clear()
    lone, _ = run(axpy, bare, {"P": ("correct", 2.0)}, budget=5, model=ScriptedModel(answer), temperature=0.7)
    assert len(lone.attempts) == 1


def test_a_model_that_repeats_itself_is_not_resampled(axpy):
    graph = synthetic_graph(axpy, [(INITIAL, "p", "serial", "P")])
    other_task_evidence(graph, INITIAL, "p", tasks=3)
    model = ScriptedModel(lambda r, k: fenced(marked(axpy, "BROKEN")))  # the same failing code every time
    result, _ = run(axpy, graph, {}, budget=10, model=model, temperature=0.7)
    assert [a.sample for a in result.attempts] == [0, 1]  # two identical answers end it
    assert result.stopped == "search space exhausted"


def test_code_given_back_unchanged_is_no_step(axpy):
    """A step that returns the code it was given is not a new state to search from."""
    graph = synthetic_graph(axpy, [(INITIAL, "p", "serial", "P"), ("p", "q", "P", "P")])
    search, result = internal_search(axpy, graph, {"P": ("correct", 2.0)}, budget=10)
    p_state = search.root.children[("p", 0)]
    q_child = p_state.children[("q", 0)]
    assert q_child.terminal and q_child.key[0] == "unchanged"
    assert [a.method for a in result.attempts] == ["p", "q"]


def test_dive_steps_join_the_tree_and_no_request_is_asked_twice(axpy):
    graph = synthetic_graph(axpy, STEPS)
    search, result = internal_search(axpy, graph, TABLE, budget=3, epsilon=0.0, step_cap=2, max_samples=1)
    kinds = [a.kind for a in result.attempts]
    assert kinds[0] == "expand" and set(kinds[1:]) == {"rollout"}
    # every state the dive made is a tree child with the iteration's visit
    visited = [s for s in search.table.values() if s.attempt is not None and not s.terminal]
    assert visited and all(s.N == 1 for s in visited)
    assert search.root.N == 1
    # over a long run, one sample per method: no (code, method) pair is asked twice
    long, _ = run(axpy, graph, TABLE, budget=40, max_samples=1)
    pairs = Counter((a.parent, tuple(a.source), a.method) for a in long.attempts)
    assert max(pairs.values()) == 1


def test_max_backpropagation_and_the_best_kernel(axpy):
    graph = synthetic_graph(axpy, STEPS)
    search, result = internal_search(axpy, graph, TABLE, budget=25)
    assert search.root.best == pytest.approx(math.log(8.0))
    assert search.iterations == search.root.N
    for state in search.table.values():
        if state.N and state.value is not None:
            assert state.best >= state.value
    best = result.best_attempt
    assert best.reward == 8.0 and "R:PAB" in result.best_code
    assert [a.method for a in result.path()] == ["p", "a", "b"]


def test_the_reward_value_scale_is_an_option(axpy):
    graph = synthetic_graph(axpy, STEPS)
    search, _ = internal_search(axpy, graph, TABLE, budget=25, value="reward")
    assert search.root.best == 8.0
    with pytest.raises(ValueError, match="value must be"):
        make_strategy("mcgs", value="speed")


def test_a_cycle_of_code_terminates(axpy):
    """a -> p gives back the code P that is already on the path: selection never re-enters it, and
    the search stops with budget left."""
    steps = [(INITIAL, "p", "serial", "P"), ("p", "a", "P", "PA"), ("a", "p", "PA", "P")]
    table = {"P": ("correct", 1.0), "PA": ("correct", 2.0)}
    graph = synthetic_graph(axpy, steps)
    result, evals = run(axpy, graph, table, budget=100)
    assert result.spent.generations < 100
    assert sorted(set(evals.calls)) == ["P", "PA"]  # each code evaluated once
    assert result.best_attempt.reward == 2.0


def test_self_loops_and_method_cycles_are_searched(axpy):
    graph = synthetic_graph(axpy, STEPS)
    result, _ = run(axpy, graph, TABLE, budget=40)
    tried = {(a.source, a.method) for a in result.attempts}
    assert (("a",), "a") in tried  # the self-loop a -> a
    assert (("b",), "a") in tried and (("a",), "b") in tried  # both directions of a <-> b


def test_same_seed_same_search(axpy):
    graph = synthetic_graph(axpy, STEPS)
    one, _ = run(axpy, graph, TABLE, budget=15, seed=3)
    two, _ = run(axpy, graph, TABLE, budget=15, seed=3)
    assert [a.to_dict() for a in one.attempts] == [a.to_dict() for a in two.attempts]


@pytest.mark.parametrize(
    ("budget", "generations", "reason"),
    [
        (Budget(4), 4, "generation budget"),
        (Budget(100, gpu_seconds=2.5), 5, "GPU-second cap"),  # 0.5 s per evaluation: stops at 2.5
    ],
)
def test_budget_limits(axpy, budget, generations, reason):
    graph = synthetic_graph(axpy, STEPS)
    for m in "abc":
        other_task_evidence(graph, "p", m, tasks=1)
    table = {k: (*v, 0.5) for k, v in TABLE.items()}
    result, _ = run(axpy, graph, table, budget=budget, epsilon=0.0)
    assert reason in result.stopped
    if budget.gpu_seconds is not None:
        assert result.spent.gpu_seconds >= budget.gpu_seconds
        assert result.spent.gpu_seconds - budget.gpu_seconds < 0.5 + 1e-9  # at most one step over
    else:
        assert result.spent.generations == generations


def test_token_cap(axpy):
    graph = synthetic_graph(axpy, [(INITIAL, "p", "serial", "P"), ("p", "p", "P", "P")])
    answers = iter(range(100))
    model = ScriptedModel(lambda r, k: fenced(marked(axpy, f"S{next(answers)}")), usage=(10, 20))
    table = {f"S{i}": ("correct", 1.0 + i) for i in range(100)}
    result, _ = run(axpy, graph, table, budget=Budget(100, tokens=45), model=model)
    assert result.spent.tokens == 60 and result.spent.generations == 2
    assert "token cap" in result.stopped


def test_parameters_are_checked():
    with pytest.raises(ValueError, match="prior must be"):
        make_strategy("mcgs", prior="teacher")
    assert make_strategy("mcgs", c="2.5", resample="false").params()["resample"] is False


def test_the_best_kernel_is_chosen_with_its_interval(axpy):
    """A kernel faster only within noise (overlapping 95% intervals) does not displace the one found in
    fewer steps, and the result says so; one faster beyond noise does."""
    chain = [(INITIAL, "p", "serial", "A"), ("p", "q", "A", "B"), ("q", "r", "B", "C")]
    # FakeEvaluator's intervals are +-5%: A [1.90, 2.10] and B [1.95, 2.15] overlap; C [2.85, 3.15] does not
    table = {"A": ("correct", 2.0), "B": ("correct", 2.05), "C": ("correct", 3.0)}
    graph = synthetic_graph(axpy, chain)
    two, _ = run(axpy, graph, table, budget=2, step_cap=1)
    assert [a.reward for a in two.attempts] == [2.0, 2.05]
    assert two.best == 0  # B's point estimate is higher, but not beyond noise, and its path is longer
    assert any("1 other correct kernel(s) are within noise of it (#1)" in n for n in two.best_notes())
    three, _ = run(axpy, graph, table, budget=3, step_cap=2)
    assert three.best_attempt.reward == 3.0 and three.best_notes() == []


def test_a_best_kernel_within_noise_of_its_baseline_is_reported_so(axpy):
    graph = synthetic_graph(axpy, [(INITIAL, "p", "serial", "A")])
    result, _ = run(axpy, graph, {"A": ("correct", 1.02)}, budget=1)  # 95% CI 0.969-1.071
    assert result.best_attempt is not None
    assert any("within noise of 1" in note for note in result.best_notes())
