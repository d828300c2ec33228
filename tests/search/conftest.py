"""Shared pieces of the search tests.

- `FakeEvaluator`: the evaluation boundary with known verdicts, for unit tests of the search
  algorithms (the unit under test ends where the evaluator begins). Verdicts are looked up by a
  marker comment in the candidate's code (`/* R:name */`).
- `ScriptedModel`: a ChatModel at the model boundary whose answers a test function chooses.
- synthetic graphs whose examples carry those markers, so the offline policy (a real component)
  replays them.
- the real cpu fixtures: small task folders (tests/search/tasks) and authored OpenMP trajectories
  (tests/search/fixtures/cpu_trajectories.jsonl) built into a cpu graph.
"""

from __future__ import annotations

import hashlib
import re
import shutil
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from regrapht.eval.config import EvalConfig, TimingConfig
from regrapht.eval.record import Evaluation, hierarchical_reward
from regrapht.graph.model import INITIAL, Example, Node, ReGraph, Speedup
from regrapht.llm.types import ChatRequest, ChatResult, Usage
from regrapht.search.evaluate import EvalOutcome, EvalRequest
from regrapht.tasks import Task, load_task

HERE = Path(__file__).parent
TASKS = HERE / "tasks"
TRAJECTORIES = HERE / "fixtures" / "cpu_trajectories.jsonl"
HAVE_GXX = shutil.which("g++") is not None
needs_gxx = pytest.mark.skipif(not HAVE_GXX, reason="g++ is needed to evaluate cpu candidates")

_MARK = re.compile(r"/\* R:(\w+) \*/")


def marked(task: Task, name: str) -> str:
    """A small, compilable-looking candidate for `task` carrying the marker `name`."""
    return f"{task.signature} {{ /* R:{name} */ }}\n"


class KnownVerdicts:
    """Verdicts by marker: table[name] = (status, speedup over serial or None[, worker seconds])."""

    def __init__(self, table: dict[str, tuple[Any, ...]]) -> None:
        self.table = table
        self.config = EvalConfig()
        self.calls: list[str] = []  # markers, in the order they were evaluated
        self.batches: list[int] = []

    def verdict(self, source: str) -> tuple[str, float | None, float]:
        m = _MARK.search(source)
        entry = self.table.get(m.group(1)) if m else None
        if entry is None:
            return ("compile_error", None, 0.0)
        status, speedup, *rest = entry
        return status, speedup, float(rest[0]) if rest else 0.5

    def evaluate_one(self, task: Task, source: str, target: str) -> Evaluation:
        status, speedup, seconds = self.verdict(source)
        m = _MARK.search(source)
        self.calls.append(m.group(1) if m else "?")
        ev = Evaluation(
            task_id=task.id,
            target=target,
            status=status,
            message="" if status == "correct" else f"{status}: known verdict",
            candidate_sha256=hashlib.sha256(source.encode()).hexdigest(),
            seconds={"worker": seconds, "total": seconds},
        )
        if status == "correct" and speedup is not None:
            ev.speedups = {"serial": {"value": speedup, "ci_low": speedup * 0.95, "ci_high": speedup * 1.05}}
            ev.timings = {"candidate": {"median_s": 1e-3 / speedup}}
        ev.reward = hierarchical_reward(status, speedup) if status == "correct" else -1.0
        return ev


class FakeEvaluator(KnownVerdicts):
    """The evaluation backend of a search (`EvalBackend`) with known verdicts."""

    config_hash = "fake"

    def machine(self, target: str) -> str:
        return "fake-machine"

    def evaluate_many(self, requests: Sequence[EvalRequest]) -> list[EvalOutcome]:
        self.batches.append(len(requests))
        return [
            EvalOutcome(self.evaluate_one(r.task, r.source, r.target), f"fake:{r.source}") for r in requests
        ]


class FakeCoreEvaluator(KnownVerdicts):
    """Known verdicts behind the real `Evaluator`'s surface, to sit under the store-backed EvalService."""

    class _Compiler:
        jobs = 2

    compiler = _Compiler()

    def evaluate(self, task: Task, source: str, target: str = "cpu", baselines: Any = None) -> Evaluation:
        return self.evaluate_one(task, source, target)

    def evaluate_many(self, items: list[tuple[Task, str, str]]) -> list[Evaluation]:
        self.batches.append(len(items))
        return [self.evaluate_one(*item) for item in items]


class ScriptedModel:
    """A ChatModel whose answer to each request is `answer(request, sample_index)`. Records requests."""

    def __init__(
        self,
        answer: Callable[[ChatRequest, int], str],
        identity: str = "scripted:test",
        usage: tuple[int, int] = (10, 20),
        context: int | None = 32768,
    ) -> None:
        self.answer = answer
        self.identity = identity
        self.usage = usage
        self.context = context
        self.requests: list[ChatRequest] = []
        self.batches: list[int] = []

    def generate(self, requests: Sequence[ChatRequest], on_result: Any = None) -> list[ChatResult]:
        self.batches.append(len(requests))
        out = []
        for i, r in enumerate(requests):
            self.requests.append(r)
            texts = tuple(self.answer(r, k) for k in range(r.n))
            res = ChatResult(texts, ("stop",) * r.n, Usage(self.usage[0], self.usage[1] * r.n), 0.01)
            out.append(res)
            if on_result is not None:
                on_result(i, res)
        return out

    def context_length(self) -> int:
        if self.context is None:
            from regrapht.llm.errors import ContextLengthUnknownError

            raise ContextLengthUnknownError("scripted model has no context length")
        return self.context

    def count_tokens(self, text: str) -> int:
        return len(text) // 4 + 1

    def describe(self) -> dict[str, Any]:
        return {"backend": "scripted"}

    def close(self) -> None:
        pass


def fenced(code: str, lang: str = "cpp") -> str:
    return f"Here is the code.\n```{lang}\n{code.strip()}\n```\n"


def synthetic_graph(
    task: Task,
    steps: list[tuple[str, str, str, str]],
    statuses: dict[str, tuple[str, float | None]] | None = None,
    target: str = "cpu",
) -> ReGraph:
    """A graph from (source node, target node, before marker, after marker) steps of `task`; the
    marker "serial" means the task's serial code. `statuses` gives examples a recorded verdict."""
    g = ReGraph(target)
    statuses = statuses or {}

    def code(name: str) -> str:
        return task.serial_source() if name == "serial" else marked(task, name)

    for i, (src, dst, before, after) in enumerate(steps):
        for n in (src, dst):
            if n not in g.nodes:
                g.add_node(Node(n, f"the method {n}", None, "new"))
        if not g.has_edge(src, dst):
            g.add_edge(src, dst)
        status, sp = statuses.get(after, ("correct", None))
        g.edge(src, dst).examples.append(
            Example(
                task=task.id,
                think=f"apply {dst}",
                detail=f"{before} -> {after}",
                before=code(before),
                after=code(after),
                trajectory=f"{i:064x}",
                step=0 if src == INITIAL else 1,
                raw_method=dst,
                status=status,
                speedup=None if sp is None else Speedup(sp),
            )
        )
    return g


def other_task_evidence(graph: ReGraph, source: str, target: str, tasks: int, gain: float = 1.5) -> None:
    """Examples of `tasks` other tasks on source -> target: what the searched task's priors may read."""
    if source not in graph.nodes or target not in graph.nodes:
        raise KeyError((source, target))
    if not graph.has_edge(source, target):
        graph.add_edge(source, target)
    for i in range(tasks):
        graph.edge(source, target).examples.append(
            Example(
                task=f"other_{target}_{i}",
                think="",
                detail="",
                before=f"void other_{i}() {{}}",
                after=f"void other_{i}() {{ /* {target} */ }}",
                trajectory=f"{hash((source, target, i)) & (2**64 - 1):064x}",
                step=1,
                raw_method=target,
                status="correct",
                speedup=Speedup(gain),
            )
        )


def cpu_graph(verifier: Any = None) -> ReGraph:
    """The cpu graph of the authored OpenMP trajectories (unverified unless a verifier is given)."""
    from regrapht.graph.build import build_graph
    from regrapht.graph.relabel import OfflineRelabeler
    from regrapht.graph.trajectory import read_trajectories
    from regrapht.tasks import find_task

    trajs = [t for _, t in read_trajectories(TRAJECTORIES)]
    g = ReGraph("cpu")

    def start(task: str, kind: str) -> str:
        return find_task(task, TASKS).serial_source()

    build_graph(g, trajs, OfflineRelabeler(embedder=None), verifier, start)
    return g


def quick_eval_config(cache: Path | None = None) -> EvalConfig:
    return EvalConfig(
        seeds=1,
        timing_config=TimingConfig(
            warmup_rounds=1, min_rounds=3, budget_s=0.2, serial_budget_s=0.2, serial_max_rounds=5
        ),
        call_timeout_s=10.0,
        total_timeout_s=60.0,
        memory_limit_gib=1.0,
        cache_dir=None if cache is None else str(cache),
        secret=b"regrapht-search-tests",
    )


@pytest.fixture(scope="session")
def axpy() -> Task:
    return load_task(TASKS / "axpy_small")


@pytest.fixture(scope="session")
def row_sums() -> Task:
    return load_task(TASKS / "row_sums")


@pytest.fixture(scope="session")
def graph_cpu() -> ReGraph:
    return cpu_graph()


@pytest.fixture(scope="session")
def compile_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("search-compile-cache")


@pytest.fixture(scope="session")
def shared_store(tmp_path_factory: pytest.TempPathFactory):
    """One run store for the real-evaluator tests, so a candidate any of them evaluated is not
    evaluated again (the store-backed evaluation cache is itself under test)."""
    from regrapht.store import RunStore

    store = RunStore(tmp_path_factory.mktemp("search-store") / "shared.sqlite")
    yield store
    store.close()


@pytest.fixture(scope="session")
def real_evals(compile_cache: Path, shared_store):
    """The real evaluator (g++/OpenMP) behind the store-backed evaluation service."""
    if not HAVE_GXX:
        pytest.skip("g++ is needed to evaluate cpu candidates")
    from regrapht.eval import Evaluator
    from regrapht.search.evaluate import EvalService
    from regrapht.search.store import SearchStore

    with Evaluator(quick_eval_config(compile_cache)) as evaluator:
        yield EvalService(evaluator, SearchStore(shared_store))


def recorded_code(task: str, author: str, step: int) -> str:
    """The code of step `step` of the authored trajectory of `task` by `author` (the cpu fixtures)."""
    import json

    for line in TRAJECTORIES.read_text().splitlines():
        d = json.loads(line)
        if d["task"] == task and d["author"] == author:
            return d["steps"][step]["code"]
    raise KeyError((task, author, step))


def offline_meta(policy: Any) -> dict[str, Any]:
    return {"identity": policy.identity, "offline": True, "label": policy.label, "spec": "offline"}
