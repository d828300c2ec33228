"""Monte Carlo Graph Search over the ReGraph (ReGraphT, Section 3.3).

Search states are (place on the graph, code). The search graph grows from the starting code; each
iteration does four things:

1. **Selection.** From the root, repeatedly move to the child with the largest P-UCB,

       P-UCB(s) = Q(s) + c * sqrt(2 ln N(parent) / N(s)),      c = 1 in the paper,

   until a child that was never tried is chosen. Children never visited score +inf; among them, the
   best reward rollouts already saw for that method from this graph position decides (an unseen one
   counts 0, so a method whose rollout failed here is tried last), then the graph's prior order (edge
   score = smoothed verified share x geometric-mean gain, as the advisor ranks them, then the name).

   *What "parent" means.* The search graph is a graph, not a tree: through transpositions a state can
   be reached from several states. N(parent) is the visit count of the state we arrived from **on the
   current selection path**. This is the natural reading of UCT on a DAG (the exploration bonus of
   an edge grows with the visits of the state the decision is made in) and it keeps the bonus of a
   shared state different for each state that can choose it.

2. **Expansion.** Trying a child = one generation: the model receives the current code, the chosen
   method (its definition from the taxonomy) and the worked examples of that edge the graph
   retrieves, and returns new code, which the evaluator scores. The new code is placed on the graph
   with the method recognizer (`SearchContext._place`). On the first visit of a state, all its
   successors in the ReGraph become its (untried) children.

3. **Rollout.** From the new state, up to `step_cap` further steps, each choosing

       argmax_a [ Q(s, a) - lambda * N(s, a) ]   with probability 1 - epsilon, a random successor otherwise,

   where Q(s, a) and N(s, a) are the best reward and the number of tries of method a from graph
   position s in this search (expansions count too; an untried a has Q = 0). A rollout stops at the
   first step that is not correct, at a dead end, at the step cap, or when a step reproduces code it
   already had. The rollout's reward R is the maximum hierarchical reward along it, the new state's own
   included (Eq. 3: -1 unless correct; speedup - 1 when slower; speedup when faster).

4. **Backpropagation.** Along the selection path only (not the rollout), N(s) += 1 and
   Q(s) = max(Q(s), R) (max-reward backpropagation).

Cycles and transpositions: states are keyed by (position, code hash), so code reached twice is one
state (its evaluation is reused). Selection never re-enters a state already on the current path. A
state whose code failed is terminal. The best correct code found anywhere (expansions and rollouts)
is the result.

Resampling (our addition; the paper is silent): a model's answer is a sample, so the same method
applied to the same code can give other code. A child slot is (method, sample index). Slots widen
progressively: a state visited N times allows 1 + N // `widen_every` samples of each method, and when
selection finds no usable child at a state (each exhausted or on the path) every method gets one more;
never more than `samples_per_action`. A new slot is untried, so selection tries it next. This is what
lets the search retry a method whose first sample failed to compile (the walk gets up to 5 attempts per
step for the same reason) and reach the other outcomes of a step. `samples_per_action=1` gives the plain
one-child-per-edge search. A state is *exhausted* when it is terminal, or when it has no successor, or when every method
has all its samples tried and every child is exhausted; the search ends when the root is exhausted,
the budget is spent, or `rollouts` iterations have run.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from regrapht.search.context import Point, SearchContext, Steps
from regrapht.search.record import Attempt
from regrapht.search.strategy import ParamsMixin

UNVISITED = math.inf
STALL_LIMIT = 50  # iterations in a row that spend nothing end the search


@dataclass(eq=False)
class State:
    key: Any
    point: Point | None  # None when the generation gave no code
    reward: float
    correct: bool
    N: int = 0
    Q: float = -math.inf
    children: dict[tuple[str, int], State | None] = field(default_factory=dict)  # (method, sample) -> child
    expanded: bool = False
    exhausted: bool = False
    attempt: int | None = None

    @property
    def terminal(self) -> bool:
        return not self.correct


def pucb(parent_visits: int, child: State | None, c: float = 1.0) -> float:
    """Q(s) + c * sqrt(2 ln N(parent) / N(s)); +inf for a child never visited."""
    if child is None or child.N == 0:
        return UNVISITED
    return child.Q + c * math.sqrt(2.0 * math.log(max(parent_visits, 1)) / child.N)


@dataclass
class MCGS(ParamsMixin):
    """Monte Carlo Graph Search over the ReGraph (ReGraphT): P-UCB selection, full expansion,
    epsilon-greedy visit-penalised rollouts, max-reward backpropagation."""

    lam: float = 0.5  # lambda: the rollout's penalty per earlier try of the same (position, method)
    epsilon: float = 0.2  # the rollout's chance of a random successor
    step_cap: int = 3  # steps per rollout after the expanded state
    rollouts: int = 200  # iterations at most (the budget usually ends the search first)
    c: float = 1.0  # multiplier of the exploration term (1: the paper's P-UCB)
    samples_per_action: int = 3  # samples of one method from one state, at most
    widen_every: int = 4  # visits of a state per extra sample of each method (0: only when stuck)

    name = "mcgs"
    needs_graph = True
    default_budget = 16

    def run(self, ctx: SearchContext) -> Steps:
        search = _Search(self, ctx)
        yield from search.run()


class _Search:
    def __init__(self, params: MCGS, ctx: SearchContext) -> None:
        self.p = params
        self.ctx = ctx
        self.table: dict[Any, State] = {}
        root = State(("root",) + ctx.start.key, ctx.start, 0.0, True)
        self.root = root
        self.table[root.key] = root
        self.q_roll: dict[tuple[tuple[str, ...], str], float] = {}
        self.n_roll: dict[tuple[tuple[str, ...], str], int] = {}
        self.iterations = 0

    # ---- bookkeeping ------------------------------------------------------------------------------
    def prior(self, point: Point, method: str) -> float:
        from regrapht.graph.advise import score_stats

        g = self.ctx.graph
        assert g is not None
        scores = [score_stats(g.edge(p, method).stats) for p in point.position if g.has_edge(p, method)]
        return max(scores, default=0.0)

    def expand(self, state: State) -> None:
        assert state.point is not None
        successors = self.ctx.successors(state.point)
        successors.sort(key=lambda m: (-self.prior(state.point, m), m))  # type: ignore[arg-type]
        state.children = {(m, 0): None for m in successors}
        state.expanded = True
        if not successors:
            state.exhausted = True

    def register(self, attempt: Attempt) -> State:
        """The state an attempt produced; the existing one when its code was reached before."""
        if attempt.code_sha is None:
            state = State(("nocode", attempt.index), None, -1.0, False, attempt=attempt.index)
        else:
            point = self.ctx.point(attempt)
            key = point.key
            if key in self.table:
                return self.table[key]
            state = State(key, point, attempt.reward, attempt.correct, attempt=attempt.index)
        if state.terminal:
            state.exhausted = True
        self.table[state.key] = state
        return state

    def observe(self, position: tuple[str, ...], method: str, reward: float) -> None:
        key = (position, method)
        self.n_roll[key] = self.n_roll.get(key, 0) + 1
        self.q_roll[key] = max(self.q_roll.get(key, -math.inf), reward)

    def step(self, point: Point, method: str, kind: str) -> Steps:
        request, shown = self.ctx.step_request(point, method)
        attempt = yield from self.ctx.attempt(
            request, kind=kind, parent=point, method=method, examples=shown, iteration=self.iterations
        )
        self.observe(point.position, method, attempt.reward)
        return attempt

    # ---- the four phases ---------------------------------------------------------------------------
    def candidates(self, state: State, on_path: set[Any]) -> list[tuple[tuple[str, int], State | None]]:
        return [
            (slot, ch)
            for slot, ch in state.children.items()
            if ch is None or (ch.key not in on_path and not ch.exhausted)
        ]

    def widen(self, state: State, stuck: bool) -> bool:
        """Add a sample slot for each method whose samples here were all tried, when the state's visits
        allow one more (or it is `stuck`), up to the cap. Returns whether any slot was added."""
        counts: dict[str, int] = {}
        for m, _ in state.children:
            counts[m] = counts.get(m, 0) + 1
        allowed = self.p.samples_per_action
        if not stuck:
            allowed = min(allowed, 1 + (state.N // self.p.widen_every if self.p.widen_every > 0 else 0))
        added = False
        for m, n in counts.items():
            if n < allowed and state.children.get((m, n - 1)) is not None:
                state.children[(m, n)] = None
                added = True
        return added

    def fully_sampled(self, state: State) -> bool:
        counts: dict[str, int] = {}
        for m, _ in state.children:
            counts[m] = counts.get(m, 0) + 1
        return all(n >= self.p.samples_per_action for n in counts.values())

    def select(self, state: State, on_path: set[Any]) -> tuple[tuple[str, int], State | None] | None:
        """The child slot with the largest P-UCB (untried slots first, in prior order)."""
        self.widen(state, stuck=False)
        candidates = self.candidates(state, on_path)
        if not candidates and self.widen(state, stuck=True):
            candidates = self.candidates(state, on_path)
        if not candidates:
            return None
        position = state.point.position if state.point is not None else ()

        def rank(ic: tuple[int, tuple[tuple[str, int], State | None]]) -> tuple[float, float, int]:
            i, ((method, _), child) = ic
            score = pucb(state.N, child, self.p.c)
            # among untried slots: what rollouts already saw of the method from here, then graph prior order
            seen = self.q_roll.get((position, method), 0.0) if score == UNVISITED else 0.0
            return (score, seen, -i)

        return max(enumerate(candidates), key=rank)[1]

    def rollout(self, state: State) -> Steps:
        """The maximum reward along a rollout from `state` (its own reward included)."""
        assert state.point is not None
        rewards = [state.reward]
        point = state.point
        seen = {point.key}
        for _ in range(self.p.step_cap):
            successors = self.ctx.successors(point)
            if not successors:
                break
            method = self.rollout_choice(point, successors)
            attempt = yield from self.step(point, method, "rollout")
            self.register(attempt)
            rewards.append(attempt.reward)
            if not attempt.correct:
                break
            point = self.ctx.point(attempt)
            if point.key in seen:
                break
            seen.add(point.key)
        return max(rewards)

    def rollout_choice(self, point: Point, successors: list[str]) -> str:
        rng = self.ctx.rng
        if rng.random() < self.p.epsilon:
            return rng.choice(successors)

        def value(m: str) -> float:
            key = (point.position, m)
            q = self.q_roll.get(key, 0.0)
            return q - self.p.lam * self.n_roll.get(key, 0)

        top = max(value(m) for m in successors)
        tied = [m for m in successors if value(m) == top]
        return tied[0] if len(tied) == 1 else rng.choice(tied)

    def iterate(self) -> Steps:
        """One iteration; returns whether it spent a generation."""
        spent_before = self.ctx.spent.generations
        path = [self.root]
        on_path = {self.root.key}
        state = self.root
        reward: float | None = None
        while True:
            choice = self.select(state, on_path)
            if choice is None:
                if self.exhausted(state):
                    state.exhausted = True
                reward = state.Q if state.N else state.reward
                break
            (method, sample), child = choice
            if child is None:  # an untried child: one generation
                assert state.point is not None
                attempt = yield from self.step(state.point, method, "expand")
                child = self.register(attempt)
                state.children[(method, sample)] = child
                if child.key in on_path:  # a cycle: the step gave back code already on this path
                    reward = attempt.reward
                    break
                path.append(child)
                on_path.add(child.key)
                if child.terminal:
                    reward = child.reward
                elif child.expanded:  # a transposition into a state the search already knows
                    reward = max(child.reward, child.Q)
                else:
                    self.expand(child)
                    reward = yield from self.rollout(child)
                break
            path.append(child)
            on_path.add(child.key)
            state = child
            if not state.expanded:  # reached through a transposition before it was ever visited
                self.expand(state)
                reward = yield from self.rollout(state)
                break
        assert reward is not None
        for s in path:
            s.N += 1
            s.Q = max(s.Q, reward)
        for s in reversed(path):
            if self.exhausted(s):
                s.exhausted = True
        return self.ctx.spent.generations > spent_before

    def exhausted(self, state: State) -> bool:
        if state.terminal or (state.expanded and not state.children):
            return True
        return (
            state.expanded
            and all(ch is not None and ch.exhausted for ch in state.children.values())
            and self.fully_sampled(state)
        )

    def run(self) -> Steps:
        self.expand(self.root)
        stalled = 0
        try:
            while self.iterations < self.p.rollouts and not self.root.exhausted:
                self.ctx.check_budget()
                spent = yield from self.iterate()
                self.iterations += 1
                stalled = 0 if spent else stalled + 1
                if stalled >= STALL_LIMIT:
                    self.ctx.result.stopped = "no untried step is reachable (every path is blocked)"
                    break
            else:
                self.ctx.result.stopped = (
                    "search space exhausted" if self.root.exhausted else f"{self.p.rollouts} iterations done"
                )
        finally:
            self.ctx.result.details["mcgs"] = self.summary()

    def summary(self) -> dict[str, Any]:
        root_children = []
        for (m, k), ch in self.root.children.items():
            root_children.append(
                {
                    "method": m,
                    "sample": k,
                    "N": 0 if ch is None else ch.N,
                    "Q": None if ch is None or ch.N == 0 else ch.Q,
                }
            )
        return {
            "iterations": self.iterations,
            "states": len(self.table),
            "root_visits": self.root.N,
            "root_children": root_children,
            "exhausted": self.root.exhausted,
        }
