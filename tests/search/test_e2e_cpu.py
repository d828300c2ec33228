"""Every strategy end to end on the real cpu target: g++/OpenMP, the real evaluator (isolated
workers, correctness on secret inputs, timing against the serial reference), and the store-backed
evaluation cache shared by these tests.

The graph strategies run with the offline policy over the authored OpenMP trajectories. The
whole-task strategies talk to a loopback OpenAI-compatible server with canned OpenMP answers through
the llm layer's HTTP backend and call cache: those are protocol tests (the answers are not a model's).
"""

from __future__ import annotations

import pytest

from regrapht.search import Budget, OfflinePolicy, SearchJob, make_strategy, open_search_model, run_searches
from regrapht.search.offline import parse_step_prompt
from regrapht.store import RunStore
from tests.chat_server import CannedChatServer

from .conftest import fenced, needs_gxx, offline_meta, recorded_code

pytestmark = needs_gxx

AX_PAR = recorded_code("axpy_small", "alice", 0)
AX_SIMD = recorded_code("axpy_small", "alice", 1)
AX_DYNAMIC = recorded_code("axpy_small", "carol", 0)
AX_STATIC = recorded_code("axpy_small", "carol", 1)
AX_BROKEN = AX_PAR.replace("y[i] = a * x[i] + y[i];", "y[i] = a * x[i] + y[i]")  # a missing semicolon


def check_verdicts(result):
    best = result.best_attempt
    assert best is not None and best.status == "correct", [(a.status, a.message) for a in result.attempts]
    sp = best.speedups["serial"]
    assert sp["value"] > 0 and sp["ci_low"] <= sp["value"] <= sp["ci_high"]
    assert best.median_s and best.median_s > 0
    assert result.machine.startswith("cpu:")
    for a in result.attempts:
        if a.status == "correct":
            assert a.reward == pytest.approx(
                a.speedups["serial"]["value"] - 1
                if a.speedups["serial"]["value"] < 1
                else a.speedups["serial"]["value"]
            )
        elif a.code_sha is not None:
            assert a.reward == -1.0 and a.message


@pytest.mark.parametrize("name", ["mcgs", "walk", "greedy"])
def test_graph_strategies_with_the_offline_policy(name, axpy, graph_cpu, real_evals):
    policy = OfflinePolicy(graph_cpu)
    [result] = run_searches(
        [SearchJob(axpy, 0)],
        strategy=make_strategy(name),
        target="cpu",
        budget=Budget(4),
        model=policy,
        model_meta=offline_meta(policy),
        evals=real_evals,
        graph=graph_cpu,
    )
    check_verdicts(result)
    assert result.attempts[0].method == "parallelize" and result.attempts[0].source == ("initial",)
    recorded = {
        recorded_code("axpy_small", a, s).strip()
        for a, s in [
            ("alice", 0),
            ("alice", 1),
            ("alice", 2),
            ("bob", 0),
            ("bob", 1),
            ("carol", 0),
            ("carol", 1),
        ]
    }
    assert result.best_code.strip() in recorded  # the offline policy never invents code
    assert result.attempts[0].recognized and "parallelize" in result.attempts[0].recognized
    assert result.model["offline"] and result.model["label"].startswith("offline policy")


def canned(messages, k):
    """The canned OpenMP answers of the protocol tests, chosen by prompt."""
    text = messages[-1]["content"]
    if "Your previous attempt" in text:  # refine
        return "Add the missing semicolon.\n" + fenced(AX_PAR)
    if "Earlier variants" in text:  # contrastive
        return "Static scheduling avoids the overhead.\n" + fenced(AX_STATIC)
    if "Think step by step" in text:  # cot
        return "1. Independent iterations.\n" + fenced(AX_SIMD)
    if "worked example" in text:  # rag
        return fenced(AX_STATIC)
    if parse_step_prompt(text) is not None:
        return fenced(AX_PAR)
    return fenced(AX_BROKEN if "FIRST" not in text else AX_PAR)  # standard: a compile error first


@pytest.mark.parametrize(
    ("name", "budget", "templates"),
    [
        ("standard", 1, ["standard@1"]),
        ("cot", 1, ["cot@1"]),
        ("rag", 1, ["rag@1"]),
        ("refine", 2, ["standard@1", "refine@1"]),
        ("contrastive", 3, ["standard@1", "contrastive@1", "contrastive@1"]),
    ],
)
def test_whole_task_strategies_over_http(name, budget, templates, axpy, graph_cpu, real_evals, tmp_path):
    """Protocol test: a loopback server with canned OpenMP answers."""
    with CannedChatServer(canned) as server, RunStore(tmp_path / "run.sqlite") as store:
        model, meta = open_search_model(server.spec, store=store)
        [result] = run_searches(
            [SearchJob(axpy, 0)],
            strategy=make_strategy(name),
            target="cpu",
            budget=Budget(budget),
            model=model,
            model_meta=meta,
            evals=real_evals,
            graph=graph_cpu,
        )
        model.close()
    assert [a.template for a in result.attempts] == templates
    assert result.spent.tokens == budget * 150  # the server's usage, per generation
    if name == "standard":
        assert result.attempts[0].status == "compile_error" and "error" in result.attempts[0].message
        assert result.best is None
        return
    check_verdicts(result)
    if name == "refine":
        prompt = server.requests[1]["messages"][-1]["content"]
        assert "It does not compile" in prompt and "error:" in prompt  # g++'s own diagnostic, fed back
    if name == "contrastive":
        prompt = server.requests[2]["messages"][-1]["content"]
        assert "x speedup over the serial reference" in prompt and "compile_error" in prompt


def test_an_interrupted_search_resumes_without_evaluating_again(axpy, graph_cpu, real_evals, tmp_path):
    """MCGS on the real cpu target is interrupted after its second step; a new process (a new evaluation
    service on the same run store) resumes it: the steps taken before come back from the store."""
    from regrapht.search import EvalService, SearchStore

    policy = OfflinePolicy(graph_cpu)

    def go(on_attempt=None):
        with RunStore(tmp_path / "run.sqlite") as raw:
            store = SearchStore(raw)
            service = EvalService(real_evals.evaluator, store)
            [result] = run_searches(
                [SearchJob(axpy, 5)],
                strategy=make_strategy("mcgs"),
                target="cpu",
                budget=Budget(5),
                model=policy,
                model_meta=offline_meta(policy),
                evals=service,
                graph=graph_cpu,
                store=store,
                on_attempt=on_attempt,
            )
        return result, service

    def interrupt(ctx, attempt):
        if attempt.index == 1:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        go(interrupt)
    resumed, service = go()
    before = {a.code_sha for a in resumed.attempts[:2] if a.code_sha}
    assert before and resumed.spent.evaluations_reused >= len(before)
    assert all(a.reused_evaluation for a in resumed.attempts[:2] if a.new_evaluation)
    assert service.fresh == resumed.spent.evaluations - resumed.spent.evaluations_reused
    assert len(resumed.attempts) == 5 and resumed.best is not None
