"""Monte Carlo Graph Search over the ReGraph (ReGraphT, Section 3.3), with prior-guided selection.

Search states are (place on the graph, code): code reached by two paths is one state, with one
evaluation and shared statistics (a transposition). Each state's children are slots
(method, sample): one per sample of one of the graph's successor methods applied to the state's code.

Each iteration:

1. **Selection** descends from the root (the starting code) by the largest

       score(s, m, k) = Qn(child) + c * P(s, m) * sqrt(N(s) + 1) / (1 + N(child))

   (PUCT, as in the AlphaZero family). N counts visits; Qn mixes the mean of the best values the
   iterations through the child found (an iteration that found nothing correct counts 0) with the
   best value below it (the paper's max backpropagation), `mean_weight` : 1 - `mean_weight`, each
   min-max normalized over the correct kernels this search has found, so `c` means the same on every
   task; an untried slot has Qn = 0 and N(child) = 0. P is the method's prior at the state (below).
   Selection skips children on the current path (the graph has cycles), failed children and
   exhausted ones, and stops at the first untried slot.
2. **Expansion**: the untried slot is asked of the model (one generation) and evaluated.
3. **Rollout**, as a dive: from a new correct state, up to `step_cap` more steps, each applying the
   untried successor with the largest P (with probability `epsilon`, one drawn in proportion to P).
   A rollout's steps are tree children like any other: selection never asks the same (code, method)
   again, and what a rollout found is where later selections start. A step that fails, or gives the
   code back unchanged, from a state the dive reached makes it try that state's next method, at most
   `dive_retries` times; at the state selection chose, selection chooses again next iteration. It
   stops at a dead end, at code already on the path, or when its steps are spent.
4. **Backpropagation** along the whole path (selection and dive): N += 1, the iteration's best value
   R joins each state's mean, and best = max(best, R).

**Priors.** P(s, m) is the policy weight of the edge to m from the state's prior nodes (its graph
position, or the node of the method that made code the recognizer placed elsewhere:
`SearchContext.prior_nodes`; `graph.advise.policy_weight`), computed from the other tasks'
examples only (leave-task-out: `SearchContext.edge_evidence`), normalized over the state's successors
and mixed with a uniform share `prior_floor`, then multiplied by what this search saw of (position,
m) from any code: (successes + 1) / (tries + 1). A method that failed from this graph position loses
half its weight, twice failed two thirds, and so on; one that worked keeps it. `prior = "uniform"`
drops the graph's part (an ablation).

**Values.** `value = "log"` (default): a correct kernel's value is the log of its speedup over the
reward baseline. `value = "reward"`: the paper's hierarchical reward (Eq. 3) itself. Either way,
values enter selection only min-max normalized, and the run's reported reward stays Eq. 3. The log
scale matters for what the normalization compares: on a task where one kernel is 9,000x serial and
others 400x, raw rewards squash every kernel but one to the bottom of the scale.

**Resampling.** A model's answer is a sample; the same method on the same code can give other code.
After the k-th sample of (s, m) was tried, a slot for one more opens only when another sample can
differ and might be worth it: sampling is not greedy (temperature > 0), fewer than `max_samples` were
taken, some sample of it produced code (a method whose answers had no code, or that the offline
policy has no step for, is never asked again), the edge has evidence from other tasks, and no two of
its samples gave the same code (a model that repeats itself is deterministic there). The new slot's
prior is P(s, m) x (successes + 1) / (samples + 2): a method whose samples keep failing fades.

The search ends when the budget is spent, the root is exhausted (no slot left anywhere below it),
`rollouts` iterations ran, or `STALL_LIMIT` iterations in a row spent nothing (every path blocked by
cycles). The result is the best correct code found anywhere, chosen with its interval (see
`SearchContext.attempt`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from regrapht.search.context import Point, SearchContext, Steps
from regrapht.search.record import Attempt
from regrapht.search.strategy import ParamsMixin

STALL_LIMIT = 50  # iterations in a row that spend nothing end the search
Slot = tuple[str, int]  # (method, sample index)


@dataclass(eq=False)
class State:
    key: Any
    point: Point | None  # None when the generation gave no code
    value: float | None  # the search value of its own code; None when it is not correct
    N: int = 0
    best: float | None = None  # the best value found at or below it (max backpropagation)
    found_sum: float = 0.0  # the sum and count of the iterations through it that found a correct kernel
    found_n: int = 0
    methods: list[str] = field(default_factory=list)  # the graph's successors of its position
    children: dict[Slot, State] = field(default_factory=dict)  # tried slots only
    expanded: bool = False
    exhausted: bool = False
    attempt: int | None = None
    new_code: bool = True  # the step that made it produced code other than its parent's

    @property
    def terminal(self) -> bool:
        return self.value is None

    def samples(self, method: str) -> list[State]:
        out = []
        while (method, len(out)) in self.children:
            out.append(self.children[(method, len(out))])
        return out


def puct(q: float, prior: float, parent_visits: int, child_visits: int, c: float) -> float:
    """Qn + c * P * sqrt(N(parent) + 1) / (1 + N(child))."""
    return q + c * prior * math.sqrt(parent_visits + 1) / (1 + child_visits)


def search_value(attempt: Attempt, scale: str) -> float | None:
    """A correct attempt's value for the search: the log of its speedup over the reward baseline
    (recovered from Eq. 3: reward = speedup when faster, speedup - 1 when slower), or the reward."""
    if not attempt.correct:
        return None
    if scale == "reward":
        return attempt.reward
    speedup = attempt.reward if attempt.reward >= 1.0 else attempt.reward + 1.0
    return math.log(max(speedup, 1e-9))


@dataclass
class MCGS(ParamsMixin):
    """Monte Carlo Graph Search over the ReGraph: PUCT selection with leave-task-out graph priors,
    prior-guided dives whose steps join the tree, mean (and max) backpropagation, evidence-gated
    resampling."""

    c: float = 1.0  # exploration constant of PUCT
    step_cap: int = 3  # dive steps after the expanded state
    epsilon: float = 0.1  # a dive step's chance of drawing its method in proportion to P
    prior: str = "graph"  # "graph" | "uniform" (ablation: no graph statistics)
    prior_floor: float = 0.1  # uniform share mixed into P
    value: str = "log"  # "log" (log speedup) | "reward" (Eq. 3)
    mean_weight: float = 1.0  # share of the mean found value in Q (0: the paper's pure max backup)
    dive_retries: int = 2  # failed dive steps that try the next method from a state the dive reached
    max_samples: int = 3  # samples of one method from one state, at most
    resample: bool = True  # allow more than one sample of a method (ablation: False)
    rollouts: int = 200  # iterations at most (the budget usually ends the search first)

    name = "mcgs"
    needs_graph = True
    default_budget = 16

    def __post_init__(self) -> None:
        if self.prior not in ("graph", "uniform"):
            raise ValueError(f"strategy mcgs: prior must be 'graph' or 'uniform', got {self.prior!r}")
        if self.value not in ("log", "reward"):
            raise ValueError(f"strategy mcgs: value must be 'log' or 'reward', got {self.value!r}")

    def run(self, ctx: SearchContext) -> Steps:
        search = _Search(self, ctx)
        yield from search.run()


class _Search:
    def __init__(self, params: MCGS, ctx: SearchContext) -> None:
        self.p = params
        self.ctx = ctx
        self.table: dict[Any, State] = {}
        root = State(("root",) + ctx.start.key, ctx.start, 0.0)
        self.root = root
        self.table[root.key] = root
        self.tried: dict[
            tuple[tuple[str, ...], str], list[int]
        ] = {}  # (position, method) -> [tries, successes]
        self.low: float | None = None  # the worst and best values of correct kernels found
        self.high: float | None = None
        self.iterations = 0
        self.resamples = [0, 0]  # samples after the first of a (state, method), and those that found new code
        self._codes: set[str] = set()  # every code a step produced
        self._priors: dict[Any, dict[str, float]] = {}

    # ---- values and priors --------------------------------------------------------------------------
    def normalized(self, value: float | None) -> float:
        if value is None or self.low is None or self.high is None:
            return 0.0
        if self.high <= self.low:
            return 1.0
        return (value - self.low) / (self.high - self.low)

    def q(self, state: State) -> float:
        """The state's value for selection: (1 - w) * Qn(best below) + w * the mean normalized value its
        iterations found (an iteration that found nothing correct counts 0), w = `mean_weight`."""
        best = self.normalized(state.best)
        if state.N == 0 or self.p.mean_weight == 0:
            return best
        if self.low is None or self.high is None or self.high <= self.low:
            mean = state.found_n / state.N
        else:
            mean = (state.found_sum - state.found_n * self.low) / ((self.high - self.low) * state.N)
        return (1 - self.p.mean_weight) * best + self.p.mean_weight * mean

    def graph_priors(self, state: State) -> dict[str, float]:
        found = self._priors.get(state.key)
        if found is None:
            assert state.point is not None
            n = len(state.methods)
            raw = {
                m: self.raw_prior(state.point, m) for m in state.methods
            }
            total = sum(raw.values())
            floor = self.p.prior_floor if total > 0 else 1.0
            found = {
                m: (1 - floor) * (raw[m] / total if total > 0 else 0.0) + floor / n for m in state.methods
            }
            self._priors[state.key] = found
        return found

    def raw_prior(self, point: Point, method: str) -> float:
        if self.p.prior == "uniform":
            return 1.0
        return self.ctx.prior(point, method)

    def prior(self, state: State, method: str) -> float:
        assert state.point is not None
        tries, successes = self.tried.get((state.point.position, method), (0, 0))
        return self.graph_priors(state)[method] * (successes + 1) / (tries + 1)

    # ---- the tree -------------------------------------------------------------------------------------
    def expand(self, state: State) -> None:
        assert state.point is not None
        state.methods = self.ctx.successors(state.point)
        state.expanded = True

    def register(self, attempt: Attempt) -> State:
        """The state an attempt produced; the existing one when its code was reached before."""
        if attempt.code_sha is None:
            state = State(("nocode", attempt.index), None, None, attempt=attempt.index, new_code=False)
            state.exhausted = True
            self.table[state.key] = state
            return state
        point = self.ctx.point(attempt)
        if point.key in self.table:
            return self.table[point.key]
        value = search_value(attempt, self.p.value)
        state = State(point.key, point, value, attempt=attempt.index, best=value)
        if value is None:
            state.exhausted = True
        else:
            self.low = value if self.low is None else min(self.low, value)
            self.high = value if self.high is None else max(self.high, value)
            self.expand(state)
        self.table[state.key] = state
        return state

    def resample_weight(self, state: State, method: str, samples: list[State]) -> float | None:
        """The prior factor of one more sample of `method` at `state`, or None when none may be asked."""
        if not self.p.resample or len(samples) >= self.p.max_samples:
            return None
        if self.ctx.sampling.temperature <= 0:
            return None
        if not any(s.new_code for s in samples):
            return None  # no sample had code, or each gave the code back unchanged
        assert state.point is not None
        if self.ctx.edge_evidence(state.point, method)[1] == 0:
            return None
        codes = [s.point.key[1] if s.point is not None else s.key for s in samples]
        if len(set(codes)) < len(codes):
            return None  # two samples gave the same code: the model repeats itself here
        successes = sum(1 for s in samples if not s.terminal)  # correct and changed (see `step`)
        return (successes + 1) / (len(samples) + 2) * self.resample_payoff()

    def resample_payoff(self) -> float:
        """How often another sample has been worth asking in this run: (new correct code + 1) /
        (resamples + 2). A model whose repeated answers never differ usefully is soon asked once per
        method; one whose samples vary keeps being resampled."""
        asked, paid = self.resamples
        return (paid + 1) / (asked + 2)

    def options(self, state: State, on_path: set[Any]) -> list[tuple[float, float, int, Slot, State | None]]:
        """Every slot selection may take at `state`, scored: (score, prior, -order, slot, child)."""
        out = []
        for order, method in enumerate(state.methods):
            p = self.prior(state, method)
            samples = state.samples(method)
            for k, child in enumerate(samples):
                if child.terminal or child.exhausted or child.key in on_path:
                    continue
                q = self.q(child)
                out.append((puct(q, p, state.N, child.N, self.p.c), p, -order, (method, k), child))
            if not samples:
                out.append((puct(0.0, p, state.N, 0, self.p.c), p, -order, (method, 0), None))
            else:
                weight = self.resample_weight(state, method, samples)
                if weight is not None:
                    pw = p * weight
                    out.append(
                        (
                            puct(0.0, pw, state.N, len(samples), self.p.c),
                            pw,
                            -order,
                            (method, len(samples)),
                            None,
                        )
                    )
        return out

    def select(self, state: State, on_path: set[Any]) -> tuple[Slot, State | None] | None:
        options = self.options(state, on_path)
        if not options:
            return None
        best = max(options, key=lambda o: o[:3])
        return best[3], best[4]

    def dive_slot(self, state: State, on_path: set[Any]) -> Slot | None:
        """The next step of a dive: the untried method with the largest prior (epsilon: drawn by prior)."""
        untried = [m for m in state.methods if not state.samples(m)]
        if not untried:
            return None
        weights = [self.prior(state, m) for m in untried]
        if self.ctx.rng.random() < self.p.epsilon:
            return (self.ctx.rng.choices(untried, weights=weights)[0], 0)
        top = max(range(len(untried)), key=lambda i: (weights[i], -i))
        return (untried[top], 0)

    def exhausted(self, state: State) -> bool:
        if state.terminal or (state.expanded and not state.methods):
            return True
        return state.expanded and not self.options(state, set())

    # ---- one step, one iteration ----------------------------------------------------------------------
    def step(self, state: State, slot: Slot, kind: str) -> Steps:
        assert state.point is not None
        method = slot[0]
        request, shown = self.ctx.step_request(state.point, method)
        attempt = yield from self.ctx.attempt(
            request, kind=kind, parent=state.point, method=method, examples=shown, iteration=self.iterations
        )
        progressed = attempt.correct and attempt.code_sha != state.point.key[1]
        if slot[1] > 0:
            self.resamples[0] += 1
            self.resamples[1] += progressed and attempt.code_sha not in self._codes
        if attempt.code_sha is not None:
            self._codes.add(attempt.code_sha)
        record = self.tried.setdefault((state.point.position, method), [0, 0])
        record[0] += 1
        record[1] += progressed
        if attempt.correct and not progressed:
            # the code came back unchanged: no step was made, whatever the graph position says
            child = State(
                ("unchanged", attempt.index), None, None, attempt=attempt.index, exhausted=True, new_code=False
            )
        else:
            child = self.register(attempt)
        state.children[slot] = child
        return child

    def dive(self, state: State, slot: Slot, path: list[State], on_path: set[Any]) -> Steps:
        """Expand `slot` of `state`, then keep going down the best-prior untried steps; returns the best
        value found (None when nothing correct was)."""
        found: list[float] = []
        kind = "expand"
        misses = 0
        start = state
        for _ in range(self.p.step_cap + 1):
            known = set(self.table)
            child = yield from self.step(state, slot, kind)
            kind = "rollout"
            if child.terminal and misses < self.p.dive_retries and state is not start:
                # a step that failed (or changed nothing): the dive tries the next method from here
                misses += 1
                nxt = self.dive_slot(state, on_path)
                if nxt is None:
                    break
                slot = nxt
                continue
            if child.terminal or child.key in on_path:
                break
            path.append(child)
            on_path.add(child.key)
            if child.key in known:  # a transposition: what is below it is known already
                found.append(child.best if child.best is not None else child.value)  # type: ignore[arg-type]
                break
            assert child.value is not None
            found.append(child.value)
            nxt = self.dive_slot(child, on_path)
            if nxt is None:
                break
            state, slot = child, nxt
        return max(found, default=None)

    def iterate(self) -> Steps:
        """One iteration; returns whether it spent a generation."""
        spent_before = self.ctx.spent.generations
        path = [self.root]
        on_path = {self.root.key}
        state = self.root
        reward: float | None
        while True:
            choice = self.select(state, on_path)
            if choice is None:
                if self.exhausted(state):
                    state.exhausted = True
                reward = state.best
                break
            slot, child = choice
            if child is None:
                reward = yield from self.dive(state, slot, path, on_path)
                break
            path.append(child)
            on_path.add(child.key)
            state = child
        for s in path:
            s.N += 1
            if reward is not None:
                s.found_sum += reward
                s.found_n += 1
                if s.best is None or reward > s.best:
                    s.best = reward
        for s in reversed(path):
            if not s.exhausted and self.exhausted(s):
                s.exhausted = True
        return self.ctx.spent.generations > spent_before

    def run(self) -> Steps:
        self.expand(self.root)
        if not self.root.methods:
            self.root.exhausted = True
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
                    "N": ch.N,
                    "value": None if ch.best is None else round(ch.best, 6),
                    "prior": round(self.graph_priors(self.root)[m], 6),
                }
            )
        return {
            "iterations": self.iterations,
            "states": len(self.table),
            "root_visits": self.root.N,
            "root_children": root_children,
            "exhausted": self.root.exhausted,
            "value_scale": self.p.value,
        }
