from __future__ import annotations

import json

import pytest

from regrapht.graph.build import build_graph
from regrapht.graph.model import INITIAL, Node, ReGraph
from regrapht.graph.relabel import ModelRelabeler, OfflineRelabeler, RelabelError
from tests.chat_server import ScriptedChatServer

from .conftest import RecordedVerifier


@pytest.mark.parametrize(
    ("raw", "method", "how"),
    [
        ("tiling", "shared_memory_tiling", "synonym"),
        ("coalesced access", "memory_coalescing", "synonym"),
        ("unroll loops", "loop_unrolling", "synonym"),
        ("use float4", "vectorized_access", "synonym"),
        ("Loop Unrolling", "loop_unrolling", "exact"),
        ("Tiled matrix multiply using shared memory", "shared_memory_tiling", "contained"),
        ("Double buffering of shared tiles", "async_copy_pipelining", "contained"),
        ("Loop fission", "loop_fission", "new"),
        ("Dynamic parallelism", "dynamic_parallelism", "new"),
        ("Warp specialization", "warp_specialization", "exact"),
        ("Loop peeling", "loop_peeling", "new"),
    ],
)
def test_offline_names_and_synonyms(raw: str, method: str, how: str) -> None:
    lab = OfflineRelabeler(embedder=None).label_one(raw, ReGraph("cuda"))
    assert (lab.method, lab.how) == (method, how)
    assert lab.is_new == (how == "new")


def test_offline_without_model_says_so() -> None:
    r = OfflineRelabeler(embedder=None)
    assert "names and synonyms only" in r.notice


def test_new_method_on_the_graph_is_reused() -> None:
    g = ReGraph("cuda")
    g.add_node(Node("loop_peeling", "Loop peeling: the first iteration out of the loop.", None, "new"))
    lab = OfflineRelabeler(embedder=None).label_one("Loop Peeling", g)
    assert (lab.method, lab.how) == ("loop_peeling", "graph")


def test_target_decides_between_synonyms() -> None:
    r = OfflineRelabeler(embedder=None)
    assert r.label_one("tiling", ReGraph("cpu")).method == "cache_blocking"
    assert r.label_one("vectorization", ReGraph("cpu")).method == "simd_vectorization"


@pytest.mark.slow  # loads MiniLM and embeds the taxonomy: about 25 s on 2 cores
def test_embedding_fallback_maps_paraphrases_and_keeps_new_methods(embedder) -> None:
    r = OfflineRelabeler(embedder=embedder)
    g = ReGraph("cuda")
    paraphrases = {
        "Coalesce global memory reads": "memory_coalescing",
        "Unroll the inner loop by 4": "loop_unrolling",
        "Fuse the two kernels": "kernel_fusion",
        "Memory prefetching": "async_copy_pipelining",
        "Parallel reduction with warp shuffle": "warp_shuffle_reduction",
    }
    for raw, method in paraphrases.items():
        lab = r.label_one(raw, g)
        assert (lab.method, lab.how) == (method, "embedding"), raw
        assert lab.score is not None and lab.score >= r.threshold
    for raw in (
        "Dynamic parallelism",
        "Stream compaction",
        "Loop peeling",
        "Sparse matrix format conversion to CSR",
        "Hilbert curve ordering",
        "Bit manipulation tricks",
    ):
        assert r.label_one(raw, g).how == "new", raw


def test_model_relabeler_over_http(trajs) -> None:
    from regrapht.llm.factory import open_model

    with ScriptedChatServer() as server:
        model = open_model(f"openai:teacher@{server.url}")
        relabeler = ModelRelabeler(model)
        server.answers.append(
            "I map each step.\n```json\n"
            + json.dumps(
                [
                    {"existed": True, "method": "parallelize"},
                    {"existed": True, "method": "Block Tree Reduction"},
                    {"existed": False, "method": "Warp-synchronous reduction"},
                ]
            )
            + "\n```"
        )
        labels = relabeler.relabel(
            ["Parallelism", "Shared Memory", "warp shuffle"], ReGraph("cuda"), ["naive", "tree", "shuffle"]
        )
        assert [(lab.method, lab.how) for lab in labels] == [
            ("parallelize", "model"),
            ("block_tree_reduction", "model"),
            ("warp_synchronous_reduction", "new"),
        ]
        prompt = server.prompts[-1][-1]["content"]
        assert "shared_memory_tiling:" in prompt and "2. Shared Memory: tree" in prompt
        # an answer with the wrong number of labels drops the whole trajectory
        server.answers.append(json.dumps([{"existed": True, "method": "parallelize"}]))
        g = ReGraph("cuda")
        report = build_graph(g, trajs[:1], relabeler, RecordedVerifier(trajs))
        assert report.dropped == 1 and "expected 3 relabel items" in report.reasons[0]
        assert g.edges == {} and list(g.nodes) == [INITIAL]
        # so does an "existing" method that is not one of the offered names
        server.answers.append(json.dumps([{"existed": True, "method": "magic"}] * 3))
        with pytest.raises(RelabelError, match="not one of the canonical methods"):
            relabeler.relabel(["a", "b", "c"], ReGraph("cuda"))
        model.close()
