"""MCGS on small synthetic graphs with known rewards: selection, expansion, rollout,
backpropagation, cycles, failures, resampling, budgets.

The model is the offline policy (a real component) replaying the synthetic graph's recorded steps;
the evaluator is `FakeEvaluator`, the boundary of the unit under test, with known verdicts.
"""

from __future__ import annotations

import math
import random

import pytest

from regrapht.graph.model import INITIAL
from regrapht.search import (
    MCGS,
    Budget,
    OfflinePolicy,
    SearchContext,
    SearchJob,
    make_strategy,
    pucb,
    run_searches,
)
from regrapht.search.context import ModelInfo
from regrapht.search.driver import Run, drive
from regrapht.search.mcgs import State, _Search

from .conftest import FakeEvaluator, ScriptedModel, fenced, marked, offline_meta, synthetic_graph

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


def run(task, graph, table, budget=12, seed=0, model=None, strategy="mcgs", **params):
    evals = FakeEvaluator(table)
    policy = model or OfflinePolicy(graph)
    meta = offline_meta(policy) if isinstance(policy, OfflinePolicy) else {"identity": policy.identity}
    [result] = run_searches(
        [SearchJob(task, seed)],
        strategy=make_strategy(strategy, **params),
        target="cpu",
        budget=budget if isinstance(budget, Budget) else Budget(budget),
        model=policy,
        model_meta=meta,
        evals=evals,
        graph=graph,
    )
    return result, evals


def internal_search(task, graph, table, budget=12, seed=0, **params):
    """Run MCGS and hand back its search object, to look at the tree."""
    policy = OfflinePolicy(graph)
    ctx = SearchContext(
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
    search = _Search(MCGS(**params), ctx)
    drive([Run(ctx, search.run())], policy, FakeEvaluator(table))
    return search, ctx.result


def test_pucb_is_q_plus_the_exploration_term():
    child = State("x", None, 0.0, True, N=2, Q=1.5)
    assert pucb(10, child) == pytest.approx(1.5 + math.sqrt(2 * math.log(10) / 2))
    assert pucb(10, child, c=0.5) == pytest.approx(1.5 + 0.5 * math.sqrt(2 * math.log(10) / 2))
    assert pucb(10, None) == math.inf  # never tried
    assert pucb(10, State("y", None, 0.0, True)) == math.inf  # never visited


def test_parent_is_the_state_we_arrived_from_on_the_selection_path(axpy):
    """A state shared by two parents gets the exploration bonus of the parent being left: the same
    two children are ranked differently from a parent visited once and from one visited 3 times."""
    graph = synthetic_graph(axpy, STEPS)
    search = _Search(MCGS(), _ctx(axpy, graph))
    x = State("x", None, 1.0, True, N=1, Q=1.0)
    y = State("y", None, 1.5, True, N=4, Q=1.5)
    young = State("p1", None, 0.0, True, N=1, children={("x", 0): x, ("y", 0): y}, expanded=True)
    old = State("p2", None, 0.0, True, N=3, children={("x", 0): x, ("y", 0): y}, expanded=True)
    # from N(parent)=1: ln 1 = 0, so Q decides: y (1.5) over x (1.0)
    assert search.select(young, set())[1] is y
    # from N(parent)=3: x scores 1 + sqrt(2 ln 3 / 1) = 2.48 > y's 1.5 + sqrt(2 ln 3 / 4) = 2.24
    assert search.select(old, set())[1] is x


def test_selection_skips_children_on_the_current_path_and_exhausted_ones(axpy):
    graph = synthetic_graph(axpy, STEPS)
    search = _Search(MCGS(samples_per_action=1), _ctx(axpy, graph))
    on_path = State("a", None, 9.0, True, N=1, Q=9.0)
    done = State("b", None, 9.0, True, N=1, Q=9.0, exhausted=True)
    free = State("c", None, 0.0, True, N=5, Q=0.0)
    parent = State(
        "s", None, 0.0, True, N=7, expanded=True, children={("a", 0): on_path, ("b", 0): done, ("c", 0): free}
    )
    assert search.select(parent, {"a"})[1] is free


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


def test_first_visit_expands_every_successor(axpy):
    graph = synthetic_graph(axpy, STEPS)
    search, result = internal_search(axpy, graph, TABLE, budget=1, step_cap=0)
    assert [a.method for a in result.attempts] == ["p"]
    assert list(search.root.children) == [("p", 0)]
    p_state = search.root.children[("p", 0)]
    assert p_state.expanded and {m for m, _ in p_state.children} == {"a", "b", "c"}
    assert all(child is None for child in p_state.children.values())  # untried until selected


def test_untried_children_are_tried_in_graph_prior_order(axpy):
    statuses = {"PB": ("correct", 4.0), "PA": ("correct", 1.2)}  # recorded gains: b's prior beats a's
    graph = synthetic_graph(axpy, STEPS, statuses)
    result, _ = run(axpy, graph, TABLE, budget=4, step_cap=0)
    assert [a.method for a in result.attempts] == ["p", "b", "a", "c"]
    assert [a.iteration for a in result.attempts] == [0, 1, 2, 3]


def test_rollout_is_greedy_on_q_minus_lambda_n(axpy):
    graph = synthetic_graph(axpy, STEPS)
    search = _Search(MCGS(epsilon=0.0, lam=0.5), _ctx(axpy, graph))
    point = search.ctx.start
    search.q_roll[(point.position, "a")] = 3.0
    search.n_roll[(point.position, "a")] = 1
    search.q_roll[(point.position, "b")] = 2.0
    assert search.rollout_choice(point, ["a", "b"]) == "a"  # 3 - 0.5 > 2
    search.n_roll[(point.position, "a")] = 3
    assert search.rollout_choice(point, ["a", "b"]) == "b"  # 3 - 1.5 < 2
    search.p.lam = 0.0
    assert search.rollout_choice(point, ["a", "b"]) == "a"
    # an untried method counts as Q = 0: it beats a method whose tries all failed
    search.q_roll[(point.position, "a")] = -1.0
    search.q_roll[(point.position, "b")] = -1.0
    assert search.rollout_choice(point, ["a", "b", "z"]) == "z"


def test_rollout_explores_at_random_with_probability_epsilon(axpy):
    graph = synthetic_graph(axpy, STEPS)
    search = _Search(MCGS(epsilon=1.0), _ctx(axpy, graph))
    search.ctx.rng = random.Random(7)
    point = search.ctx.start
    search.q_roll[(point.position, "a")] = 100.0
    picks = {search.rollout_choice(point, ["a", "b", "c"]) for _ in range(60)}
    assert picks == {"a", "b", "c"}


def test_rollout_stops_at_the_first_failing_step(axpy):
    steps = [(INITIAL, "p", "serial", "P"), ("p", "c", "P", "PC"), ("c", "d", "PC", "PCD")]
    table = {"P": ("correct", 1.0), "PC": ("wrong_answer", None), "PCD": ("correct", 9.0)}
    graph = synthetic_graph(axpy, steps)
    result, evals = run(axpy, graph, table, budget=2, step_cap=3)
    assert [(a.kind, a.method, a.status) for a in result.attempts] == [
        ("expand", "p", "correct"),
        ("rollout", "c", "wrong_answer"),
    ]
    assert "PCD" not in evals.calls  # the rollout never went past the failure


def test_rollout_reward_is_the_maximum_along_it_and_backpropagates_on_the_selection_path(axpy):
    graph = synthetic_graph(axpy, STEPS)
    search, result = internal_search(axpy, graph, TABLE, budget=3, epsilon=0.0, step_cap=2)
    kinds = [a.kind for a in result.attempts]
    assert kinds[0] == "expand" and set(kinds[1:]) == {"rollout"}
    rewards = [a.reward for a in result.attempts]
    # one iteration: the root and the expanded state got R = max reward along the rollout
    p_state = search.root.children[("p", 0)]
    assert search.root.N == 1 and p_state.N == 1
    assert search.root.Q == p_state.Q == max(rewards)
    # states made by the rollout are in the transposition table, but never on a selection path
    rollout_states = [s for s in search.table.values() if s.attempt in {a.index for a in result.attempts[1:]}]
    assert rollout_states and all(s.N == 0 for s in rollout_states)


def test_max_reward_backpropagation_over_many_iterations(axpy):
    graph = synthetic_graph(axpy, STEPS)
    search, result = internal_search(axpy, graph, TABLE, budget=20)
    best = max(a.reward for a in result.attempts)
    assert search.root.Q == best == 8.0
    for state in search.table.values():
        if state.N:
            assert state.reward <= state.Q or not state.correct
    assert search.iterations == search.root.N


def test_returns_the_best_correct_kernel(axpy):
    graph = synthetic_graph(axpy, STEPS)
    result, _ = run(axpy, graph, TABLE, budget=20)
    best = result.best_attempt
    assert best is not None and best.correct and best.reward == 8.0
    assert "R:PAB" in result.best_code
    assert [a.method for a in result.path()][-1] == "b"
    assert [a.method for a in result.path()][0] == "p"


def test_a_cycle_of_code_terminates(axpy):
    """a -> p gives back the code P that is already on the path: selection never re-enters it, and
    the search stops with budget left."""
    steps = [(INITIAL, "p", "serial", "P"), ("p", "a", "P", "PA"), ("a", "p", "PA", "P")]
    table = {"P": ("correct", 1.0), "PA": ("correct", 2.0)}
    graph = synthetic_graph(axpy, steps)
    for samples in (1, 3):
        result, evals = run(axpy, graph, table, budget=100, samples_per_action=samples)
        # P -> PA -> P: PA's only way on is back onto the path, so no iteration can spend anything
        assert result.stopped == "no untried step is reachable (every path is blocked)", result.stopped
        assert result.spent.generations < 100
        assert sorted(set(evals.calls)) == ["P", "PA"]  # each code evaluated once
        assert result.best_attempt.reward == 2.0


def test_self_loops_and_method_cycles_are_searched(axpy):
    graph = synthetic_graph(axpy, STEPS)
    result, _ = run(axpy, graph, TABLE, budget=40)
    tried = {(a.source, a.method) for a in result.attempts}
    assert (("a",), "a") in tried  # the self-loop a -> a
    assert (("b",), "a") in tried and (("a",), "b") in tried  # both directions of a <-> b


def test_a_missing_recorded_step_is_a_failed_generation_that_costs_budget(axpy):
    graph = synthetic_graph(axpy, STEPS)
    result, _ = run(axpy, graph, TABLE, budget=12)
    missing = [a for a in result.attempts if a.status == "no_recorded_step"]
    assert missing and all(a.reward == -1.0 and a.code_sha is None for a in missing)
    assert result.spent.failed_generations == len(missing)
    assert result.spent.generations == len(result.attempts) == 12
    assert "no recorded step" in missing[0].message


def test_resampling_retries_a_method_whose_sample_failed(axpy):
    code = marked(axpy, "P")

    def answer(request, k):
        # the first request's sample has no code; asked again (new seed), the model answers
        return "I cannot do that." if request.params.seed == first_seed[0] else fenced(code)

    first_seed: list[int] = []
    model = ScriptedModel(
        lambda r, k: (first_seed.append(r.params.seed) if not first_seed else None) or answer(r, k)
    )
    graph = synthetic_graph(axpy, [(INITIAL, "p", "serial", "P")])
    result, _ = run(axpy, graph, {"P": ("correct", 2.0)}, budget=5, model=model)
    assert [(a.method, a.sample, a.status) for a in result.attempts[:2]] == [
        ("p", 0, "no_code"),
        ("p", 1, "correct"),
    ]
    assert result.best_attempt.reward == 2.0
    plain, _ = run(
        axpy,
        graph,
        {"P": ("correct", 2.0)},
        budget=5,
        model=ScriptedModel(lambda r, k: "no code"),
        samples_per_action=1,
    )
    assert len(plain.attempts) == 1 and plain.stopped == "search space exhausted"


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
    table = {k: (*v, 0.5) for k, v in TABLE.items()}
    result, _ = run(axpy, graph, table, budget=budget, epsilon=0.0)
    assert reason in result.stopped
    if budget.gpu_seconds is not None:
        assert result.spent.gpu_seconds >= budget.gpu_seconds
        assert result.spent.gpu_seconds - budget.gpu_seconds < 0.5 + 1e-9  # at most one step over
    else:
        assert result.spent.generations == generations


def test_token_cap(axpy):
    graph = synthetic_graph(axpy, [(INITIAL, "p", "serial", "P")])
    model = ScriptedModel(lambda r, k: fenced(marked(axpy, "P")), usage=(10, 20))
    result, _ = run(axpy, graph, {"P": ("correct", 1.0)}, budget=Budget(100, tokens=45), model=model)
    assert result.spent.tokens == 60 and result.spent.generations == 2
    assert "token cap" in result.stopped


def test_untried_children_a_rollout_saw_fail_come_last(axpy):
    graph = synthetic_graph(axpy, STEPS)
    search = _Search(MCGS(), _ctx(axpy, graph))
    state = State(
        "s", search.ctx.start, 0.0, True, N=2, expanded=True, children={("a", 0): None, ("b", 0): None}
    )
    assert search.select(state, set())[0] == ("a", 0)  # prior order: a, b
    search.q_roll[(search.ctx.start.position, "a")] = -1.0  # a rollout applied a from here and failed
    assert search.select(state, set())[0] == ("b", 0)
