from __future__ import annotations

from regrapht.graph.merge import LabeledStep, merge_trajectory
from regrapht.graph.model import Example, ReGraph, Speedup
from regrapht.graph.retrieve import estimate_tokens, lexical_similarity, render_example, retrieve_examples

from .conftest import NAIVE_MATMUL, NAIVE_SUM, NAIVE_TRANSPOSE, kernel


def ex(traj, before, after, status="correct", speedup=None, task="t"):
    return Example(
        task,
        "why",
        "what",
        before,
        after,
        traj,
        0,
        "m",
        status=status,
        speedup=None if speedup is None else Speedup(speedup),
    )


def graph_with(examples, source_methods=None):
    g = ReGraph("cuda")
    for i, x in enumerate(examples):
        prefix = (source_methods or {}).get(i, [])
        steps = [LabeledStep(m, ex(f"{x.trajectory}-p{j}", "p", "p")) for j, m in enumerate(prefix)]
        steps.append(LabeledStep("shared_memory_tiling", x))
        merge_trajectory(g, steps)
    return g


def test_similar_code_first_within_a_tier() -> None:
    g = graph_with(
        [
            ex("a", NAIVE_SUM, "s1", speedup=2.0, task="sum"),
            ex("b", NAIVE_MATMUL, "s2", speedup=2.0, task="matmul"),
            ex("c", NAIVE_TRANSPOSE, "s3", speedup=2.0, task="transpose"),
        ]
    )
    code = NAIVE_MATMUL.replace("acc", "total")
    got = retrieve_examples(g, code, "shared_memory_tiling", k=3)
    assert [r.example.task for r in got][0] == "matmul"
    assert got[0].similarity > got[1].similarity


def test_verified_and_faster_first_then_slower_then_unverified_failures_excluded() -> None:
    g = graph_with(
        [
            ex("fail", NAIVE_MATMUL, "x1", status="compile_error"),
            ex("unv", NAIVE_MATMUL, "x2", status="unverified"),
            ex("slow", NAIVE_MATMUL, "x3", speedup=0.8),
            ex("fast", NAIVE_SUM, "x4", speedup=3.0),
            ex("nomeasure", NAIVE_MATMUL, "x5"),
        ]
    )
    got = retrieve_examples(g, NAIVE_MATMUL, "shared_memory_tiling", k=10)
    assert [r.example.trajectory for r in got] == ["fast", "nomeasure", "slow", "unv"]
    with_failures = retrieve_examples(g, NAIVE_MATMUL, "shared_memory_tiling", k=10, include_failures=True)
    assert with_failures[-1].example.trajectory == "fail"


def test_token_budget_and_custom_counter() -> None:
    big = kernel("sgemm_register_tiled.cu")
    g = graph_with([ex("big", big, big, speedup=5.0), ex("small", NAIVE_SUM, "y", speedup=1.5)])
    e = g.edge("initial", "shared_memory_tiling")
    big_tokens = estimate_tokens(render_example(e.examples[0], e))
    small_tokens = estimate_tokens(render_example(e.examples[1], e))
    got = retrieve_examples(g, big, "shared_memory_tiling", k=2, budget_tokens=big_tokens - 1)
    assert [r.example.trajectory for r in got] == ["small"]  # the better one did not fit; the next did
    assert got[0].tokens == small_tokens
    got = retrieve_examples(g, big, "shared_memory_tiling", k=2, budget_tokens=big_tokens + small_tokens)
    assert [r.example.trajectory for r in got] == ["big", "small"]
    words = retrieve_examples(
        g, big, "shared_memory_tiling", k=2, budget_tokens=10**6, count_tokens=lambda s: len(s.split())
    )
    assert words[0].tokens == len(render_example(e.examples[0], e).split())
    assert retrieve_examples(g, big, "shared_memory_tiling", budget_tokens=5) == []


def test_examples_from_the_current_node_get_a_bonus() -> None:
    g = graph_with(
        [ex("x", NAIVE_MATMUL, "a", speedup=2.0), ex("y", NAIVE_MATMUL, "b", speedup=2.0)],
        source_methods={1: ["parallelize"]},
    )
    got = retrieve_examples(g, NAIVE_MATMUL, "shared_memory_tiling", source="parallelize", k=2)
    assert got[0].example.trajectory == "y" and got[0].score > got[1].score


def test_embedding_similarity_ranks_like_code(embedder) -> None:
    g = graph_with(
        [
            ex("sum", NAIVE_SUM, "s", speedup=2.0),
            ex("mm", NAIVE_MATMUL, "m", speedup=2.0),
            ex("tr", NAIVE_TRANSPOSE, "t", speedup=2.0),
        ]
    )
    got = retrieve_examples(g, kernel("matmul_tiled.cu"), "shared_memory_tiling", k=3, embedder=embedder)
    assert got[0].example.trajectory == "mm"


def test_lexical_similarity_bounds() -> None:
    assert abs(lexical_similarity(NAIVE_SUM, NAIVE_SUM) - 1.0) < 1e-9
    assert lexical_similarity("", NAIVE_SUM) == 0.0
    assert 0 < lexical_similarity(NAIVE_SUM, NAIVE_MATMUL) < 1
