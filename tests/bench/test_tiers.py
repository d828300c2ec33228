"""Measured tiers (bench/tiers.py): steps the recognizer finds in solution.cu, minus what naive.cu
already does, plus headroom measured on a GPU."""

from __future__ import annotations

from types import SimpleNamespace

from regrapht.bench.tiers import HEADROOM_EASY, audit_tier, declared_steps, tier_of_count


def _seen(mapping: dict[str, set[str]]):
    """A stand-in recognizer: the methods each source is said to use."""
    return lambda source: SimpleNamespace(methods={m: [] for m in mapping.get(source, set())})


SOLUTION = "// steps: parallelize, shared_memory_tiling, loop_unrolling, kernel_fusion, bank_conflict_avoidance\n"
NAIVE = "naive"


def test_declared_steps_read_the_first_line_once_each() -> None:
    assert declared_steps("// steps: a, b, a ,c\nint x;") == ["a", "b", "c"]
    assert declared_steps("int x; // steps: a") == []


def test_parallelize_already_in_naive_does_not_count_and_unseen_steps_do_not_either() -> None:
    recognizer = _seen({SOLUTION: {"parallelize", "shared_memory_tiling", "loop_unrolling"}, NAIVE: {"parallelize"}})
    audit = audit_tier("medium", SOLUTION, NAIVE, recognizer=recognizer)
    assert audit.baseline == ["parallelize"]
    assert audit.unverifiable == ["kernel_fusion"]  # no static signal: counted on trust
    assert audit.unseen == ["bank_conflict_avoidance"]  # the recognizer sees padding, and found none
    assert audit.counted == ["shared_memory_tiling", "loop_unrolling", "kernel_fusion"]
    assert audit.tier == "medium" and audit.agrees
    assert "declared but not found in the code: bank_conflict_avoidance" in audit.describe()


def test_a_hard_declaration_with_three_verified_steps_measures_medium() -> None:
    recognizer = _seen({SOLUTION: {"shared_memory_tiling", "loop_unrolling"}, NAIVE: {"parallelize"}})
    audit = audit_tier("hard", SOLUTION, NAIVE, recognizer=recognizer)
    assert audit.tier == "medium" and not audit.agrees


def test_little_headroom_makes_a_task_easy() -> None:
    recognizer = _seen({SOLUTION: {"shared_memory_tiling", "loop_unrolling", "bank_conflict_avoidance"}})
    assert audit_tier("medium", SOLUTION, NAIVE, headroom=3.0, recognizer=recognizer).tier == "medium"
    assert audit_tier("medium", SOLUTION, NAIVE, headroom=HEADROOM_EASY - 0.01, recognizer=recognizer).tier == "easy"


def test_tier_of_count_matches_the_declared_bands() -> None:
    assert [tier_of_count(n) for n in (0, 1, 2, 3, 5, 6, 9)] == [
        "easy", "easy", "easy", "medium", "medium", "hard", "hard",
    ]  # fmt: skip


def test_the_real_recognizer_finds_a_grid_stride_loop_and_unrolling() -> None:
    solution = (
        "// steps: parallelize, grid_stride_loop, loop_unrolling\n"
        "__global__ void k(int n, float* y) {\n"
        "  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {\n"
        "#pragma unroll\n"
        "    for (int j = 0; j < 4; ++j) y[i] += j;\n"
        "  }\n"
        "}\n"
    )
    naive = "__global__ void k(int n, float* y) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] += 1; }\n"
    audit = audit_tier("easy", solution, naive)
    assert audit.baseline == ["parallelize"]
    assert audit.counted == ["grid_stride_loop", "loop_unrolling"] and audit.tier == "easy"
