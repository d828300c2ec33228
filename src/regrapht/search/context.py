"""What every strategy works with: the task, the graph, the budget, and one step.

Strategies are written as generators. A step yields a `GenerateOp` (a chat request) and, when code
came back, an `EvaluateOp` (a candidate); the driver (`regrapht.search.driver`) answers them, batching
the operations of many concurrent runs into one model call and one evaluator call. Written this way,
a run's decisions depend only on its seed and on what its own requests returned, which is what
makes a run deterministic given a seed, the call cache and the stored evaluations.

`SearchContext.attempt` is the one step: ask, parse, evaluate, place the new code on the graph with
the method recognizer, account the spend, record the attempt, keep the best.
"""

from __future__ import annotations

import hashlib
import random
from collections import Counter
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any

from regrapht.eval.record import Evaluation
from regrapht.graph.model import INITIAL, ReGraph
from regrapht.llm.budget import estimate_tokens, fit_prompt
from regrapht.llm.cache import request_key
from regrapht.llm.errors import ContextLengthUnknownError
from regrapht.llm.parse import ParseFailure, extract_code
from regrapht.llm.templates import TemplateLibrary
from regrapht.llm.types import ChatModel, ChatRequest, ChatResult, Message, SamplingParams
from regrapht.search.budget import Budget, BudgetExhausted, Spend
from regrapht.search.evaluate import EvalOutcome, EvalRequest
from regrapht.search.offline import NO_RECORDED_STEP
from regrapht.search.record import Attempt, SearchResult, code_hash, faster_beyond_noise
from regrapht.tasks import Task

MESSAGE_LIMIT = 2000  # characters of an evaluator message kept in an attempt
REPEAT_SEED_STRIDE = 1_000_003  # the k-th repeat of a request samples with seed + k * stride


@lru_cache(maxsize=4096)
def recognized_methods(code: str, target: str) -> tuple[str, ...]:
    """The shipped taxonomy's methods the recognizer sees in `code`. Cached: searches place the same
    code again and again (a rollout revisits states, the offline policy replays recorded kernels), and
    one recognition costs tens of milliseconds."""
    from regrapht.graph.recognize import recognize

    return tuple(recognize(code, target).names)


@dataclass(frozen=True)
class GenerateOp:
    request: ChatRequest


@dataclass(frozen=True)
class EvaluateOp:
    request: EvalRequest


Op = GenerateOp | EvaluateOp
Steps = Generator[Op, Any, Any]  # what strategy code yields and is sent back


class TaskFailure(Exception):
    """The task itself could not be evaluated (its reference is broken): not the candidate's fault."""


@dataclass
class Point:
    """Code at a place on the graph: the starting code (attempt None) or an attempt's code."""

    position: tuple[str, ...]
    code: str
    attempt: int | None
    reward: float | None = None
    method: str | None = None  # the method whose application made the code (None: the starting code)

    @property
    def key(self) -> tuple[tuple[str, ...], str]:
        return (self.position, code_hash(self.code))


@dataclass
class ModelInfo:
    """What prompt fitting needs from the model: its context length (None when it does not say) and
    its token counter."""

    context_length: int | None
    count_tokens: Callable[[str], int]

    @classmethod
    def of(cls, model: ChatModel) -> ModelInfo:
        try:
            length: int | None = model.context_length()
        except ContextLengthUnknownError:
            length = None
        return cls(length, model.count_tokens)


@dataclass
class StepSettings:
    """How steps are asked: sampling, and how many worked examples a step shows."""

    sampling: SamplingParams = field(default_factory=lambda: SamplingParams(temperature=0.7, max_tokens=4096))
    examples: int = 2  # worked examples of the chosen method per optimize_step prompt
    example_budget_tokens: int = 3000  # ... within this many (estimated) tokens
    failure_examples: int = 0  # failed attempts of the method shown too ("what went wrong here")
    start: str = "serial"  # "serial", "naive", or inline code


def derive_seed(*parts: object) -> int:
    return int.from_bytes(hashlib.sha256("\x1f".join(map(str, parts)).encode()).digest()[:8], "big")


def task_variables(task: Task) -> dict[str, Any]:
    """The `task` variable of the prompt templates."""
    return {
        "name": task.id,
        "description": task.description or task.title,
        "function_name": task.function,
        "source": task.serial_source(),
        "convention": task.convention,
        "requirements": [],
    } | ({"launch": task.launch.describe()} if task.launch is not None else {})


class SearchContext:
    """One run of one strategy on one task. Strategies call `attempt` (a generator) and read the
    graph through `successors`, `step_request` and `definition`."""

    def __init__(
        self,
        task: Task,
        target: str,
        *,
        strategy: str,
        params: dict[str, Any],
        budget: Budget,
        seed: int,
        model: dict[str, Any],
        model_info: ModelInfo,
        graph: ReGraph | None = None,
        graph_info: dict[str, Any] | None = None,
        settings: StepSettings | None = None,
        machine: str = "",
        templates: TemplateLibrary | None = None,
        embedder: Any = None,
        on_attempt: Callable[[SearchContext, Attempt], None] | None = None,
    ) -> None:
        self.task = task
        self.target = target
        self.graph = graph
        # Priors and worked examples come from what the graph knows of the other tasks only
        # (leave-task-out): a task's own recorded steps never steer or prompt its own search.
        self.knowledge = graph.without_task(task.id) if graph is not None else None
        self._priors: dict[tuple[tuple[str, ...], str], tuple[float, int]] = {}
        self.budget = budget
        self.seed = seed
        self.settings = settings or StepSettings()
        self.model_info = model_info
        self.templates = templates or TemplateLibrary()
        self.embedder = embedder
        self.on_attempt = on_attempt
        self.rng = random.Random(derive_seed("rng", seed, task.id, strategy))
        self.sampling = replace(self.settings.sampling, seed=derive_seed("sample", seed) % (2**31))
        self._repeats: Counter[str] = Counter()
        self._evaluated: dict[str, EvalOutcome] = {}
        self._recognizable: set[str] | None = None
        self.result = SearchResult(
            task={
                "id": task.id,
                "title": task.title,
                "category": task.category,
                "difficulty": task.difficulty,
                "split": task.split,
                "function": task.function,
                "content_hash": task.content_hash(),
            },
            target=target,
            strategy=strategy,
            params=dict(params),
            model=dict(model),
            seed=seed,
            budget=budget,
            graph=graph_info,
            machine=machine,
        )
        start = self._start_code()
        self.result.codes[code_hash(start)] = start
        self.start = Point(self._place(None, self._recognize(start)), start, None)
        self.result.start = {"code_sha": code_hash(start), "position": list(self.start.position)}

    # ---- the graph ------------------------------------------------------------------------------------
    @property
    def spent(self) -> Spend:
        return self.result.spent

    def _start_code(self) -> str:
        start = self.settings.start
        if start == "serial":
            return self.task.serial_source()
        if start == "naive":
            code = self.task.naive_source()
            if code is None:
                raise ValueError(f"task {self.task.id!r} has no naive.cu to start from")
            return code
        return start

    def _recognize(self, code: str) -> tuple[str, ...]:
        return recognized_methods(code, self.target)

    def _place(self, method: str | None, recognized: Sequence[str]) -> tuple[str, ...]:
        """Where code sits on the graph. Code made by applying `method` sits at that method's node,
        unless the recognizer can see that method in code and does not find it (the model did something
        else): then, and for whole-task prompts, it sits where the recognizer places it (the nodes of the
        methods it uses, or the initial node). A method node with no way out adds the recognized
        places, so a search can go on from where the code really is."""
        g = self.graph
        if g is None:
            return ()
        from regrapht.graph.advise import place

        placed = tuple(place(g, list(recognized)))
        if method is None:
            return placed
        if self._recognizable is None:
            from regrapht.graph.recognize import recognizable

            self._recognizable = set(recognizable(self.target))
        if method in self._recognizable and method not in recognized:
            return placed
        if g.out_edges(method) or placed == (INITIAL,):
            return (method,)
        return (method, *(p for p in placed if p != method))

    def prior_nodes(self, point: Point) -> tuple[str, ...]:
        """The nodes whose recorded successors rank the next step from the point: its position, except
        for code made by applying a method that the recognizer did not find in it (so the code sits
        where the recognizer places it). Then the method's own node ranks, when it has ways out: what
        teachers did after that method. The recognizer misses methods (it missed sgemm's register-tiled
        kernel, its accumulator sized by `kTM` constants, until session 11: the kernel sat on five
        nodes, among them `parallelize`, whose twenty successors outweighed everything), and a place
        it merely finds says what the code contains, not what was done last. Its places' successors stay possible steps, with the prior's
        uniform share."""
        m, g = point.method, self.graph
        if g is None or m is None or m in point.position or m not in g.nodes:
            return point.position
        # "Ways out" are what other tasks' teachers did after m: an edge only the searched task took
        # exists in the structure but must not decide where its own prior comes from.
        k = self.knowledge if self.knowledge is not None else g
        if m not in k.nodes or not any(e.target != INITIAL and e.examples for e in k.out_edges(m)):
            return point.position
        return (m,)

    def successors(self, point: Point) -> list[str]:
        """Methods the graph says may follow the point's position or its prior nodes (sorted, no
        duplicates)."""
        if self.graph is None:
            return []
        nodes = dict.fromkeys(point.position + self.prior_nodes(point))
        out = {e.target for node in nodes for e in self.graph.out_edges(node) if e.target != INITIAL}
        return sorted(out)

    def edge_evidence(self, point: Point, method: str) -> tuple[float, int]:
        """(prior weight, examples) of applying `method` from the point's prior nodes, from the other
        tasks' examples: `graph.advise.policy_weight` (how many tasks took the edge, its smoothed
        verified share, its gain shrunk by its evidence), the best over the prior nodes, and the number
        of examples behind it. An edge only this task took weighs as an edge with no evidence."""
        nodes = self.prior_nodes(point)
        key = (nodes, method)
        found = self._priors.get(key)
        if found is None:
            from regrapht.graph.advise import policy_weight

            g = self.knowledge
            assert g is not None
            edges = [g.edge(p, method) for p in nodes if g.has_edge(p, method)]
            found = (
                max((policy_weight(e.stats) for e in edges), default=0.0),
                sum(len(e.examples) for e in edges),
            )
            self._priors[key] = found
        return found

    def prior(self, point: Point, method: str) -> float:
        return self.edge_evidence(point, method)[0]

    def definition(self, method: str) -> str:
        assert self.graph is not None
        node = self.graph.nodes.get(method)
        return node.definition if node is not None else method.replace("_", " ")

    # ---- prompts ---------------------------------------------------------------------------------------
    def _fit(
        self, build: Callable[[Sequence[Any]], Sequence[Message]], items: Sequence[Any]
    ) -> tuple[list[Message], list[Any]]:
        if self.model_info.context_length is None:
            kept = list(items)
            return list(build(kept)), kept
        fitted = fit_prompt(
            build,
            items,
            count_tokens=self.model_info.count_tokens,
            context_length=self.model_info.context_length,
            reserve_tokens=self.sampling.max_tokens,
        )
        return fitted.messages, fitted.kept

    def request(self, template: str, variables: dict[str, Any], items_key: str | None = None) -> ChatRequest:
        """A request from a whole-task template; `items_key` names a list variable whose entries may be
        dropped (last first) to fit the model's context."""
        tpl = self.templates.get(template)
        if items_key is None:
            messages = tpl.render(**variables)
        else:
            items = list(variables[items_key])
            messages, _ = self._fit(lambda kept: tpl.render(**{**variables, items_key: list(kept)}), items)
        return ChatRequest(tuple(messages), self.sampling, 1, tpl.id)

    def step_request(self, point: Point, method: str) -> tuple[ChatRequest, tuple[str, ...]]:
        """The optimize_step prompt for applying `method` to the point's code, with the worked examples
        of that transition the graph retrieves for it (best first, fitted to the context)."""
        assert self.graph is not None
        from regrapht.graph.retrieve import retrieve_examples

        assert self.knowledge is not None
        retrieved = retrieve_examples(
            self.knowledge,
            point.code,
            method,
            source=tuple(dict.fromkeys(point.position + self.prior_nodes(point))),
            k=self.settings.examples,
            budget_tokens=self.settings.example_budget_tokens,
            count_tokens=estimate_tokens,
            embedder=self.embedder,
            failures=self.settings.failure_examples,
        )
        tpl = self.templates.get("optimize_step")
        base = {
            "task": task_variables(self.task),
            "target": self.target,
            "current_code": point.code,
            "method": {"name": method, "definition": self.definition(method)},
        }

        def build(kept: Sequence[Any]) -> list[Message]:
            examples = [
                {
                    "before": r.example.before,
                    "after": r.example.after,
                    "think": r.example.think,
                    "detail": r.example.detail,
                }
                for r in kept
                if not r.is_failure
            ]
            failures = [
                {
                    "kind": r.example.failure_kind,
                    "why": r.example.failure.why if r.example.failure is not None else "",
                    "detail": r.example.detail,
                    "status": r.example.status,
                    "message": " ".join(r.example.message.split()),
                    "after": r.example.after,
                }
                for r in kept
                if r.is_failure
            ]
            return tpl.render(**base, examples=examples, failures=failures)

        messages, kept = self._fit(build, retrieved)
        shown = tuple(f"{r.example.task}:{r.example.step}@{r.example.trajectory[:12]}" for r in kept)
        return ChatRequest(tuple(messages), self.sampling, 1, tpl.id), shown

    # ---- the step --------------------------------------------------------------------------------------
    def check_budget(self) -> None:
        reason = self.spent.exhausted(self.budget)
        if reason is not None:
            raise BudgetExhausted(reason)

    def can_generate(self) -> bool:
        return self.spent.exhausted(self.budget) is None

    def attempt(
        self,
        request: ChatRequest,
        *,
        kind: str,
        parent: Point | None,
        method: str | None = None,
        examples: tuple[str, ...] = (),
        iteration: int | None = None,
    ) -> Steps:
        """Ask for one sample, evaluate the code it holds, record the attempt; returns the Attempt.
        Raises BudgetExhausted before asking when the budget is spent."""
        self.check_budget()
        rkey = request_key("", request)
        sample = self._repeats[rkey]
        self._repeats[rkey] += 1
        asked = request
        if sample and request.params.seed is not None:
            asked = replace(
                request,
                params=replace(request.params, seed=request.params.seed + sample * REPEAT_SEED_STRIDE),
            )
        result: ChatResult = yield GenerateOp(asked)
        spent = self.spent
        spent.generations += 1
        spent.prompt_tokens += result.usage.prompt_tokens
        spent.completion_tokens += result.usage.completion_tokens
        spent.fresh_generations += 1 - min(1, result.cached)
        finish = result.finish_reasons[0] if result.finish_reasons else "stop"
        base = parent.position if parent is not None else self.start.position
        attempt = Attempt(
            index=len(self.result.attempts),
            kind=kind,
            parent=None if parent is None else parent.attempt,
            method=method,
            source=tuple(base),
            template=request.template or "",
            sample=sample,
            finish_reason=finish,
            status="no_code",
            reward=-1.0,
            prompt_tokens=result.usage.prompt_tokens,
            completion_tokens=result.usage.completion_tokens,
            iteration=iteration,
            examples=examples,
        )
        if finish == NO_RECORDED_STEP:
            attempt.status = "no_recorded_step"
            attempt.message = result.text.strip()[:MESSAGE_LIMIT]
            spent.failed_generations += 1
        else:
            parsed = extract_code(result.text, function_name=self.task.function)
            if isinstance(parsed, ParseFailure):
                attempt.message = f"{parsed.reason}: {parsed.message}"[:MESSAGE_LIMIT]
                spent.failed_generations += 1
            else:
                attempt.parse_rule = parsed.rule
                yield from self._evaluate(attempt, parsed.code, method)
        attempt.evaluations_so_far = spent.evaluations
        self.result.attempts.append(attempt)
        if attempt.correct:
            best = self.result.best_attempt
            if best is None or self._replaces_best(attempt, best):
                self.result.best = attempt.index
        if self.on_attempt is not None:
            self.on_attempt(self, attempt)
        return attempt

    def _replaces_best(self, attempt: Attempt, best: Attempt) -> bool:
        """A new correct kernel becomes the best only if it is faster beyond the noise of both
        measurements. When their intervals overlap, the one that took fewer steps from the start (the
        simpler code to explain) stands, and the incumbent among equals; the result's `best_notes` say
        that the lead is within noise."""
        verdict = faster_beyond_noise(attempt, best)
        if verdict is not None:
            return verdict
        return len(self.result.path(attempt.index)) < len(self.result.path(best.index))

    def _evaluate(self, attempt: Attempt, code: str, method: str | None) -> Steps:
        sha = code_hash(code)
        self.result.codes.setdefault(sha, code)
        attempt.code_sha = sha
        outcome = self._evaluated.get(sha)
        if outcome is None:
            outcome = yield EvaluateOp(EvalRequest(self.task, code, self.target))
            if outcome.error is not None or outcome.evaluation is None:
                raise TaskFailure(f"task {self.task.id}: {outcome.error}")
            self._evaluated[sha] = outcome
            ev = outcome.evaluation
            seconds = float(ev.seconds.get("worker", 0.0))
            self.spent.evaluations += 1
            self.spent.gpu_seconds += seconds
            attempt.new_evaluation = True
            attempt.gpu_seconds = seconds
            if outcome.reused:
                self.spent.evaluations_reused += 1
                attempt.reused_evaluation = True
            else:
                self.spent.fresh_gpu_seconds += seconds
        ev = outcome.evaluation
        assert ev is not None
        fill_from_evaluation(attempt, ev, outcome.key)
        attempt.recognized = self._recognize(code)
        attempt.position = self._place(method, attempt.recognized)

    def point(self, attempt: Attempt) -> Point:
        """The point an attempt's code is at (only for attempts that produced code)."""
        assert attempt.code_sha is not None
        return Point(
            attempt.position, self.result.codes[attempt.code_sha], attempt.index, attempt.reward, attempt.method
        )

    def evaluation(self, attempt: Attempt) -> Evaluation | None:
        if attempt.code_sha is None:
            return None
        outcome = self._evaluated.get(attempt.code_sha)
        return None if outcome is None else outcome.evaluation


def fill_from_evaluation(attempt: Attempt, ev: Evaluation, key: str) -> None:
    attempt.eval_key = key
    attempt.status = ev.status
    attempt.reward_baseline = ev.reward_baseline
    if ev.correct:
        # correct but unmeasured (timing off): no gain known, reward 0
        attempt.reward = float(ev.reward) if ev.reward is not None else 0.0
    else:
        attempt.reward = -1.0
    attempt.message = (ev.message or "")[:MESSAGE_LIMIT]
    attempt.speedups = {
        name: {k: s.get(k) for k in ("value", "ci_low", "ci_high")} for name, s in (ev.speedups or {}).items()
    }
    cand = (ev.timings or {}).get("candidate")
    attempt.median_s = None if cand is None else float(cand["median_s"])
    attempt.roofline = dict(ev.roofline or {})
