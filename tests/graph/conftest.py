"""Shared fixtures of the graph tests: realistic trajectories built from the kernel corpus, and
graphs built from them."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from regrapht.graph.build import build_graph
from regrapht.graph.model import ReGraph, Speedup
from regrapht.graph.relabel import OfflineRelabeler
from regrapht.graph.trajectory import Step, Trajectory
from regrapht.graph.verify import StepCheck, Verdict

KERNELS = Path(__file__).parent / "kernels"

SERIAL_SUM = """float vector_sum(const float* x, int n) {
    float s = 0.0f;
    for (int i = 0; i < n; ++i) s += x[i];
    return s;
}
"""
SERIAL_MATMUL = """void matmul(const float* A, const float* B, float* C, int N) {
    for (int i = 0; i < N; ++i)
        for (int j = 0; j < N; ++j) {
            float acc = 0.0f;
            for (int k = 0; k < N; ++k) acc += A[i * N + k] * B[k * N + j];
            C[i * N + j] = acc;
        }
}
"""
SERIAL_TRANSPOSE = """void transpose(float* out, const float* in, int width, int height) {
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) out[x * height + y] = in[y * width + x];
}
"""
SERIAL_SAXPY = """void saxpy(int n, float alpha, const float* x, float* y) {
    for (int i = 0; i < n; ++i) y[i] = alpha * x[i] + y[i];
}
"""

NAIVE_SUM = """__global__ void vector_sum(const float* x, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(out, x[i]);
}
"""
NAIVE_MATMUL = """__global__ void matmul(const float* A, const float* B, float* C, int N) {
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < N && col < N) {
        float acc = 0.0f;
        for (int k = 0; k < N; ++k) acc += A[row * N + k] * B[k * N + col];
        C[row * N + col] = acc;
    }
}
"""
NAIVE_TRANSPOSE = """__global__ void transpose(float* out, const float* in, int width, int height) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width && y < height) out[x * height + y] = in[y * width + x];
}
"""


def kernel(name: str) -> str:
    text = (KERNELS / name).read_text()
    return re.sub(r"^// regrapht-(expect|target):.*\n", "", text, flags=re.M)


def step(method: str, code: str, think: str = "", detail: str = "") -> Step:
    return Step(think or f"Apply {method}.", method, detail or f"The code after applying {method}.", code)


def trajectories() -> list[Trajectory]:
    """Five realistic CUDA trajectories: repeated methods, a back edge (cycle), a new method, and
    teacher names that need relabeling (synonyms)."""
    unrolled_tiled = kernel("matmul_tiled.cu")
    return [
        Trajectory(
            "vector_sum",
            "cuda",
            {"code": SERIAL_SUM},
            (
                step(
                    "Parallelism",
                    NAIVE_SUM,
                    "One thread per element, combined with atomics.",
                    "Naive kernel.",
                ),
                step(
                    "Shared Memory",
                    kernel("reduce_tree.cu"),
                    "Atomics serialize; reduce per block first.",
                    "Tree reduction in shared memory, one partial per block.",
                ),
                step(
                    "warp shuffle",
                    kernel("reduce_warp_shuffle.cu"),
                    "The last steps of the tree waste barriers.",
                    "Reduce within warps with __shfl_down_sync, one atomic per warp.",
                ),
            ),
            author="alice",
        ),
        Trajectory(
            "matmul",
            "cuda",
            {"code": SERIAL_MATMUL},
            (
                step("naive CUDA kernel", NAIVE_MATMUL, "One thread per output element.", "2D grid."),
                step(
                    "tiling",
                    unrolled_tiled.replace("#pragma unroll\n", ""),
                    "Each A/B element is read N times.",
                    "Stage 16x16 tiles of A and B in shared memory.",
                ),
                step(
                    "unroll loops", unrolled_tiled, "The k-loop has a constant trip count.", "#pragma unroll."
                ),
                step(
                    "register blocking",
                    kernel("sgemm_register_tiled.cu"),
                    "Reuse each shared value 4 times.",
                    "Each thread computes a 4x4 tile of C in registers.",
                ),
            ),
            author="bob",
        ),
        Trajectory(
            "transpose",
            "cuda",
            {"code": SERIAL_TRANSPOSE},
            (
                step("parallelization", NAIVE_TRANSPOSE, "One thread per element.", "2D grid."),
                step(
                    "shared memory tiling",
                    kernel("transpose_padded.cu").replace("TILE_DIM + 1", "TILE_DIM"),
                    "Writes are strided.",
                    "Transpose through a shared tile so both sides coalesce.",
                ),
                step(
                    "avoid bank conflicts",
                    kernel("transpose_padded.cu"),
                    "Column reads of the tile conflict.",
                    "Pad the tile to TILE_DIM + 1 columns.",
                ),
            ),
            author="alice",
        ),
        Trajectory(
            "saxpy",
            "cuda",
            {"code": SERIAL_SAXPY},
            (
                step(
                    "Parallelism",
                    kernel("vector_add_naive.cu").replace("vector_add", "saxpy"),
                    "Embarrassingly parallel.",
                    "One thread per element.",
                ),
                step(
                    "grid-stride loop",
                    kernel("saxpy_grid_stride.cu"),
                    "Decouple grid size from n.",
                    "Loop with stride blockDim.x * gridDim.x.",
                ),
                step(
                    "loop unrolling",
                    kernel("saxpy_grid_stride.cu").replace("    for", "#pragma unroll 4\n    for"),
                    "Expose ILP.",
                    "Unroll the grid-stride loop by 4.",
                ),
                step(
                    "unroll",
                    kernel("saxpy_grid_stride.cu").replace("    for", "#pragma unroll 8\n    for"),
                    "More ILP.",
                    "Unroll by 8 instead.",
                ),
                step(
                    "grid stride loop",
                    kernel("saxpy_grid_stride.cu"),
                    "Unrolling did not pay off; back off.",
                    "Return to the plain grid-stride loop.",
                ),
            ),
            author="carol",
        ),
        Trajectory(
            "vector_sum",
            "cuda",
            {"code": SERIAL_SUM},
            (
                step("Parallelism", NAIVE_SUM, "One thread per element.", "Naive kernel."),
                step(
                    "Loop peeling",
                    NAIVE_SUM.replace("atomicAdd(out, x[i]);", "atomicAdd(out, x[i]); /* peeled */"),
                    "The first iteration is special.",
                    "Peel the first iteration out of the loop.",
                ),
            ),
            author="dave",
        ),
    ]


# Recorded measurements for the fixture trajectories, keyed by (task, author, step):
# (status, speedup of after over before, gpu). Steps not listed are correct with no measured speedup.
VERDICTS: dict[tuple[str, str, int], tuple[str, float | None, str | None]] = {
    ("vector_sum", "alice", 0): ("correct", 40.0, "NVIDIA H100 80GB HBM3"),
    ("vector_sum", "alice", 1): ("correct", 6.0, "NVIDIA H100 80GB HBM3"),
    ("vector_sum", "alice", 2): ("correct", 1.5, "NVIDIA H100 80GB HBM3"),
    ("matmul", "bob", 0): ("correct", 120.0, "NVIDIA H100 80GB HBM3"),
    ("matmul", "bob", 1): ("correct", 3.0, "NVIDIA H100 80GB HBM3"),
    ("matmul", "bob", 2): ("correct", 1.1, "NVIDIA H100 80GB HBM3"),
    ("matmul", "bob", 3): ("correct", 2.0, "NVIDIA H200"),
    ("transpose", "alice", 0): ("correct", 30.0, "NVIDIA H100 80GB HBM3"),
    ("transpose", "alice", 1): ("correct", 1.8, "NVIDIA H100 80GB HBM3"),
    ("transpose", "alice", 2): ("correct", 1.3, "NVIDIA H100 80GB HBM3"),
    ("saxpy", "carol", 0): ("correct", 25.0, "NVIDIA H100 80GB HBM3"),
    ("saxpy", "carol", 1): ("correct", 1.05, "NVIDIA H100 80GB HBM3"),
    ("saxpy", "carol", 2): ("correct", 0.97, "NVIDIA H100 80GB HBM3"),
    ("saxpy", "carol", 3): ("correct", 0.95, "NVIDIA H100 80GB HBM3"),
    ("saxpy", "carol", 4): ("correct", 1.08, "NVIDIA H100 80GB HBM3"),
    ("vector_sum", "dave", 0): ("correct", 38.0, "NVIDIA H100 80GB HBM3"),
    ("vector_sum", "dave", 1): ("wrong_answer", None, "NVIDIA H100 80GB HBM3"),
}


class RecordedVerifier:
    """Replays verdicts measured earlier (the fixture table above): the verifier boundary of the
    build pipeline, fed with recorded evaluator results instead of a live GPU."""

    def __init__(self, trajs: list[Trajectory], table: dict | None = None) -> None:
        self.by_code = {(t.task, s.code): t.author for t in trajs for s in t.steps}
        self.table = VERDICTS if table is None else table
        self.calls: list[StepCheck] = []

    def __call__(self, check: StepCheck) -> Verdict:
        self.calls.append(check)
        author = self.by_code[(check.task, check.after)]
        status, sp, gpu = self.table.get((check.task, author, check.step), ("correct", None, None))
        return Verdict(
            status,
            "" if status == "correct" else "2 of 1000 outputs differ",
            None if sp is None else Speedup(sp),
            gpu,
        )


@pytest.fixture()
def trajs() -> list[Trajectory]:
    return trajectories()


@pytest.fixture()
def names_relabeler() -> OfflineRelabeler:
    return OfflineRelabeler(embedder=None)


@pytest.fixture()
def built(trajs: list[Trajectory], names_relabeler: OfflineRelabeler) -> ReGraph:
    g = ReGraph("cuda")
    build_graph(g, trajs, names_relabeler, RecordedVerifier(trajs))
    return g


@pytest.fixture(scope="session")
def embedder():
    from regrapht.graph.embed import load_embedder

    emb, notice = load_embedder()
    if emb is None:
        pytest.skip(notice)
    return emb
