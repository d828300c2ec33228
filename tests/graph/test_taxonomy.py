from __future__ import annotations

import pytest

from regrapht.graph.taxonomy import (
    TaxonomyError,
    default_taxonomy,
    normalize_name,
    parse_taxonomy,
    snake_case,
)

# Every entry of the project's seed taxonomy (METHODS.md).
SEED = [
    "parallelize",
    "grid_stride_loop",
    "thread_coarsening",
    "launch_config_tuning",
    "persistent_kernel",
    "work_decomposition",
    "memory_coalescing",
    "data_layout_transform",
    "vectorized_access",
    "read_only_cache",
    "constant_memory",
    "shared_memory_tiling",
    "register_tiling",
    "bank_conflict_avoidance",
    "async_copy_pipelining",
    "texture_or_surface_memory",
    "warp_shuffle_reduction",
    "block_tree_reduction",
    "atomic_privatization",
    "atomic_operations",
    "work_efficient_scan",
    "cooperative_groups",
    "warp_divergence_elimination",
    "loop_unrolling",
    "fast_math_intrinsics",
    "strength_reduction",
    "mixed_precision",
    "tensor_core_mma",
    "algorithmic_change",
    "kernel_fusion",
    "library_primitive",
    "host_device_transfer_optimization",
    "stream_overlap",
    "cuda_graphs",
]


def test_every_seed_method_is_present_with_definition_and_signals() -> None:
    tax = default_taxonomy()
    assert len(SEED) == 34
    for name in SEED:
        m = tax[name]
        assert "cuda" in m.targets
        assert len(m.definition) > 20 and m.signals
    assert set(tax.categories) == {"parallelization", "memory", "reduction", "arithmetic", "system"}


@pytest.mark.parametrize(
    ("raw", "target", "expected"),
    [
        ("tiling", "cuda", "shared_memory_tiling"),
        ("tiling", "cpu", "cache_blocking"),
        ("coalesced access", "cuda", "memory_coalescing"),
        ("Unroll loops", "cuda", "loop_unrolling"),
        ("use float4", "cuda", "vectorized_access"),
        ("Use Shared-Memory Tiling!", "cuda", "shared_memory_tiling"),
        ("Memory Coalescing", "cuda", "memory_coalescing"),
        ("Warp Divergence", "cuda", "warp_divergence_elimination"),
        ("Fast Math", "cuda", "fast_math_intrinsics"),
        ("Parallelism", "cuda", "parallelize"),
        ("reduction", "cpu", "reduction_clause"),
        ("reduction", "cuda", "block_tree_reduction"),
        ("warp_shuffle_reduction", "cuda", "warp_shuffle_reduction"),
        ("cudaGraphs", "cuda", "cuda_graphs"),
        # the Hopper methods of issue 18's second round
        ("TMA", "cuda", "tma_bulk_copy"),
        ("cp.async.bulk", "cuda", "tma_bulk_copy"),
        ("cp.async", "cuda", "async_copy_pipelining"),
        ("Distributed shared memory", "cuda", "thread_block_clusters"),
        ("thread block clusters", "cuda", "thread_block_clusters"),
        ("PDL", "cuda", "programmatic_dependent_launch"),
        ("warp-aggregated atomics", "cuda", "warp_aggregated_atomics"),
        ("warp_shuffle_scan", "cuda", "warp_shuffle_reduction"),
    ],
)
def test_lexical_resolution(raw: str, target: str, expected: str) -> None:
    res = default_taxonomy().resolve(raw, target)
    assert res is not None and res.name == expected


def test_unknown_names_do_not_resolve() -> None:
    tax = default_taxonomy()
    for raw in ("loop fission", "dynamic parallelism", "loop peeling", ""):
        assert tax.resolve(raw, "cuda") is None


def test_normalization() -> None:
    assert normalize_name("Use Shared-Memory Tiling") == "shared memory tiling"
    assert normalize_name("cudaGraphs") == "graphs"  # "cuda" is filler: every method here is a CUDA method
    assert snake_case("Loop Fission!") == "loop_fission"
    assert snake_case("Use") == "use"


def _doc(**method):
    base = {"name": "m", "category": "memory", "targets": ["cuda"], "definition": "d", "signals": "s"}
    base.update(method)
    return {"schema": 1, "categories": {"memory": "Memory"}, "method": [base]}


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        ({"schema": 2}, "schema must be 1"),
        (_doc(name="Bad Name"), "snake_case"),
        (_doc(name="initial"), "reserved"),
        (_doc(category="nope"), "category 'nope'"),
        (_doc(targets=["gpu"]), "targets must be"),
        (_doc(definition=""), "definition must be"),
        (_doc(extra=1), "unknown keys"),
        (_doc(recognize={"regex": ["x"]}), "recognize keys"),
    ],
)
def test_malformed_taxonomy_is_reported(doc: dict, message: str) -> None:
    with pytest.raises(TaxonomyError, match=message):
        parse_taxonomy(doc, "t.toml")


def test_clashing_synonyms_for_one_target_are_rejected() -> None:
    doc = _doc(synonyms=["tiles"])
    doc["method"].append({**doc["method"][0], "name": "other", "synonyms": ["tiles"]})
    with pytest.raises(TaxonomyError, match="synonym 'tiles' names m, other"):
        parse_taxonomy(doc)
