"""Resuming after an interruption, and the store-backed evaluation cache under it.

The model is reached over a real socket (a loopback OpenAI-compatible server with canned answers:
protocol tests) through the llm layer's call cache; evaluations go through the real store-backed
`EvalService` with an evaluator of known verdicts underneath.
"""

from __future__ import annotations

import pytest

from regrapht.eval.config import EvalConfig
from regrapht.eval.evaluator import ReferenceError
from regrapht.graph.model import INITIAL
from regrapht.search import (
    Budget,
    EvalRequest,
    EvalService,
    SearchJob,
    SearchStore,
    make_strategy,
    open_search_model,
    run_searches,
)
from regrapht.search.offline import parse_step_prompt
from regrapht.store import RunStore
from tests.chat_server import CannedChatServer

from .conftest import FakeCoreEvaluator, fenced, marked, synthetic_graph

STEPS = [
    (INITIAL, "p", "serial", "P"),
    ("p", "a", "P", "PA"),
    ("p", "b", "P", "PB"),
    ("a", "b", "PA", "PAB"),
    ("b", "a", "PB", "PBA"),
]
TABLE = {
    "P": ("correct", 1.0),
    "PA": ("correct", 2.0),
    "PB": ("wrong_answer", None),
    "PAB": ("correct", 6.0),
    "PBA": ("correct", 3.0),
}


def responder(task):
    """Answers optimize_step prompts as the synthetic graph says; anything else gets prose."""

    def respond(messages, k):
        parsed = parse_step_prompt(messages[-1]["content"])
        if parsed is None:
            return "I do not know."
        _, method, code = parsed
        current = (
            "serial" if code.strip() == task.serial_source().strip() else code.split("R:")[1].split(" ")[0]
        )
        for _, dst, before, after in STEPS:
            if before == current and dst == method:
                return fenced(marked(task, after))
        return "That method does not apply here."

    return respond


def search(task, graph, server, store_path, on_attempt=None, budget=10):
    with RunStore(store_path) as store:
        model, meta = open_search_model(server.spec, store=store)
        core = FakeCoreEvaluator(TABLE)
        evals = EvalService(core, SearchStore(store))
        try:
            [result] = run_searches(
                [SearchJob(task, 1)],
                strategy=make_strategy("mcgs"),
                target="cpu",
                budget=Budget(budget),
                model=model,
                model_meta=meta,
                evals=evals,
                graph=graph,
                store=SearchStore(store),
                on_attempt=on_attempt,
            )
        finally:
            model.close()
    return result, core


def shape(result):
    return [(a.kind, a.method, a.parent, a.status, a.reward, a.code_sha, a.sample) for a in result.attempts]


def test_an_interrupted_search_resumes_where_it_stopped(axpy, tmp_path):
    """Protocol test: canned answers over HTTP."""
    graph = synthetic_graph(axpy, STEPS)
    with CannedChatServer(responder(axpy)) as server:
        reference, ref_core = search(axpy, graph, server, tmp_path / "a.sqlite")
        total_requests = len(server.requests)
        # the search ends with the space exhausted, after more steps than the interruption below allows
        assert total_requests == reference.spent.generations > 4

        def stop_after_four(ctx, attempt):
            if attempt.index == 3:
                raise KeyboardInterrupt

        server.requests.clear()
        with pytest.raises(KeyboardInterrupt):
            search(axpy, graph, server, tmp_path / "b.sqlite", on_attempt=stop_after_four)
        assert len(server.requests) == 4

        server.requests.clear()
        resumed, core = search(axpy, graph, server, tmp_path / "b.sqlite")
        assert shape(resumed) == shape(reference)
        assert resumed.best_code == reference.best_code
        # the 4 answers came from the call cache; only the rest was asked
        assert len(server.requests) == total_requests - 4
        # codes evaluated before the interruption came from the store, not the evaluator
        before = {a.code_sha for a in resumed.attempts[:4] if a.code_sha}
        assert resumed.spent.evaluations_reused == len(before)
        assert len(core.calls) == len(ref_core.calls) - len(before)
        assert resumed.spent.to_dict()["gpu_seconds"] == reference.spent.to_dict()["gpu_seconds"]

        server.requests.clear()
        again, core = search(axpy, graph, server, tmp_path / "b.sqlite")
        assert server.requests == [] and core.calls == []  # a finished run is loaded, not redone
        assert shape(again) == shape(reference)


def test_evaluations_are_cached_per_task_target_code_config_and_machine(axpy, tmp_path):
    with RunStore(tmp_path / "s.sqlite") as raw:
        store = SearchStore(raw)
        core = FakeCoreEvaluator(TABLE)
        service = EvalService(core, store, chunk=2)
        codes = [marked(axpy, m) for m in ("P", "PA", "PB", "PAB", "PBA")]
        out = service.evaluate_many([EvalRequest(axpy, c, "cpu") for c in codes + codes[:1]])
        assert core.batches == [2, 2, 1]  # chunks of the compile pool's size; the duplicate once
        assert [o.evaluation.status for o in out] == [
            "correct",
            "correct",
            "wrong_answer",
            "correct",
            "correct",
            "correct",
        ]
        assert out[0].key == out[5].key and not any(o.reused for o in out[:5])
        assert store.evaluation_count() == 5

        again = EvalService(FakeCoreEvaluator(TABLE), store)
        [o] = again.evaluate_many([EvalRequest(axpy, codes[3], "cpu")])
        assert o.reused and again.evaluator.calls == [] and o.evaluation.speedups["serial"]["value"] == 6.0

        elsewhere = EvalService(FakeCoreEvaluator(TABLE), store)
        elsewhere._machines["cpu"] = "cpu:another machine"  # as if this store had travelled
        [o] = elsewhere.evaluate_many([EvalRequest(axpy, codes[3], "cpu")])
        assert not o.reused and elsewhere.evaluator.calls == ["PAB"]  # never reused across machines

        # naming the machine that measured an evaluation replays it here, measuring nothing
        replay = EvalService(FakeCoreEvaluator(TABLE), store, machines={"cpu": "cpu:another machine"})
        [o] = replay.evaluate_many([EvalRequest(axpy, codes[3], "cpu")])
        assert (
            o.reused
            and replay.evaluator.calls == []
            and o.key == elsewhere.key(EvalRequest(axpy, codes[3], "cpu"))
        )
        with pytest.raises(LookupError, match="no stored evaluation"):  # a replay never measures
            replay.evaluate_many([EvalRequest(axpy, codes[2], "cpu")])
        assert replay.evaluator.calls == []

        other_config = FakeCoreEvaluator(TABLE)
        other_config.config = EvalConfig(seeds=7)
        configured = EvalService(other_config, store)
        [o] = configured.evaluate_many([EvalRequest(axpy, codes[3], "cpu")])
        assert not o.reused and configured.config_hash != service.config_hash

        secret = FakeCoreEvaluator(TABLE)
        secret.config = EvalConfig(secret=b"another input secret", jobs=3)
        assert (
            EvalService(secret, store).config_hash == service.config_hash
        )  # inputs drawn differ, verdict key not


class BrokenTaskEvaluator(FakeCoreEvaluator):
    def evaluate_many(self, items):
        if any("R:BROKEN" in source for _, source, _ in items):
            raise ReferenceError("task axpy_small: the serial reference failed")
        return super().evaluate_many(items)

    def evaluate(self, task, source, target="cpu", baselines=None):
        if "R:BROKEN" in source:
            raise ReferenceError("task axpy_small: the serial reference failed")
        return super().evaluate(task, source, target)


def test_a_broken_task_fails_its_own_requests_only(axpy, tmp_path):
    service = EvalService(BrokenTaskEvaluator(TABLE), None, chunk=4)
    out = service.evaluate_many([EvalRequest(axpy, marked(axpy, m), "cpu") for m in ("P", "BROKEN", "PA")])
    assert out[0].evaluation.status == "correct" and out[2].evaluation.status == "correct"
    assert out[1].evaluation is None and "serial reference failed" in str(out[1].error)
