from __future__ import annotations

import re
from pathlib import Path

import pytest

from regrapht.graph import recognize as rec_mod
from regrapht.graph.recognize import recognizable, recognize, unrecognizable
from regrapht.graph.taxonomy import default_taxonomy

KERNELS = sorted((Path(__file__).parent / "kernels").iterdir())


def expected(path: Path) -> tuple[str, set[str]]:
    text = path.read_text()
    target = re.search(r"regrapht-target:\s*(\w+)", text)
    methods = re.search(r"regrapht-expect:(.*)", text).group(1)
    return (target.group(1) if target else "cuda"), {m.strip() for m in methods.split(",") if m.strip()}


def test_corpus_is_large_and_varied() -> None:
    assert len(KERNELS) >= 15
    covered = set().union(*(expected(p)[1] for p in KERNELS))
    assert len(covered) >= 25


@pytest.mark.parametrize("path", KERNELS, ids=lambda p: p.name)
def test_recognizes_exactly_the_expected_methods(path: Path) -> None:
    target, methods = expected(path)
    result = recognize(path.read_text(), target)
    assert set(result.methods) == methods
    lines = path.read_text().splitlines()
    for name, evidence in result.methods.items():
        assert evidence, name
        for ev in evidence:
            assert ev.text == lines[ev.line - 1].strip()[:120] or ev.text.endswith("...")
            assert not ev.text.startswith("//")  # comments never count


def test_evidence_points_at_the_right_lines() -> None:
    src = (Path(__file__).parent / "kernels" / "transpose_padded.cu").read_text()
    r = recognize(src)
    (pad,) = r.methods["bank_conflict_avoidance"]
    assert "TILE_DIM + 1" in pad.text and pad.why == "padded shared array dimension"
    tile_lines = {e.line for e in r.methods["shared_memory_tiling"]}
    assert any("__shared__" in src.splitlines()[n - 1] for n in tile_lines)


def test_every_recognized_method_is_canonical() -> None:
    tax = default_taxonomy()
    for target in ("cuda", "cpu"):
        for m in recognizable(target):
            assert m in tax and target in tax[m].targets
    assert "memory_coalescing" in unrecognizable("cuda") and "kernel_fusion" in unrecognizable("cuda")


def test_lexical_fallback_without_tree_sitter(monkeypatch) -> None:
    def broken():
        raise ImportError("No module named 'tree_sitter_cuda'")

    monkeypatch.setattr(rec_mod, "_parser", broken)
    decoy = (Path(__file__).parent / "kernels" / "decoy_comments.cu").read_text()
    r = recognize(decoy)
    assert r.methods == {} and "tree-sitter" in r.notice  # comments and strings still do not count
    shfl = (Path(__file__).parent / "kernels" / "softmax_rows.cu").read_text()
    found = set(recognize(shfl).methods)
    assert {"warp_shuffle_reduction", "fast_math_intrinsics", "vectorized_access"} <= found
    assert "parallelize" not in found  # structural signals need the syntax tree


def test_unroll_1_is_not_unrolling() -> None:
    src = "__global__ void k(float* a) {\n#pragma unroll 1\n  for (int i = 0; i < 4; ++i) a[i] = 0;\n}\n"
    assert "loop_unrolling" not in recognize(src).methods


def test_structural_methods_are_not_claimed_recognizable_without_the_tree(monkeypatch) -> None:
    """Without tree-sitter, `parallelize` cannot be seen, so not seeing it must not count as evidence."""
    assert "parallelize" in recognizable("cuda", structural=True)
    lexical_only = set(recognizable("cuda", structural=False))
    assert "parallelize" not in lexical_only and "shared_memory_tiling" not in lexical_only
    assert "warp_shuffle_reduction" in lexical_only  # a lexical signal (__shfl_*_sync) needs no tree

    def broken():
        raise ImportError("No module named 'tree_sitter_cuda'")

    monkeypatch.setattr(rec_mod, "_parser", broken)
    assert set(recognizable("cuda")) == lexical_only
    assert "memory_coalescing" in unrecognizable("cuda") and "parallelize" not in unrecognizable("cuda")


def test_a_search_places_a_step_at_its_method_when_the_tree_is_missing(monkeypatch) -> None:
    """The search trusts the applied method when the recognizer cannot see it (no syntax tree), rather
    than sending the kernel back to the initial node, where no recorded step starts from it."""
    from types import SimpleNamespace

    from regrapht.graph.store import load_graph
    from regrapht.search.context import SearchContext

    graph = load_graph(Path(rec_mod.__file__).parent.parent / "data" / "graphs" / "cuda.json")

    def broken():
        raise ImportError("No module named 'tree_sitter_cuda'")

    monkeypatch.setattr(rec_mod, "_parser", broken)
    ctx = SimpleNamespace(graph=graph, _recognizable=None, target="cuda")
    assert SearchContext._place(ctx, "parallelize", ()) == ("parallelize",)


def test_xor_on_an_outer_index_toggles_buffers_and_is_no_swizzle() -> None:
    double_buffered = """
__global__ void k(const float* in, float* out, int n) {
    __shared__ float buf[2][256];
    for (int it = 0; it < n; ++it) {
        const int b = it & 1;
        buf[b ^ 1][threadIdx.x] = in[it * 256 + threadIdx.x];
        __syncthreads();
        const float* next = buf[b ^ 1];  // a whole buffer, named by its outer index alone
        out[it * 256 + threadIdx.x] = next[255 - threadIdx.x];
    }
}
"""
    assert "bank_conflict_avoidance" not in recognize(double_buffered).methods
    swizzled = double_buffered.replace("buf[b ^ 1][threadIdx.x] =", "buf[b][threadIdx.x ^ (it & 31)] =")
    assert "bank_conflict_avoidance" in recognize(swizzled).methods
