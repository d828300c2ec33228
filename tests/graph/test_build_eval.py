"""End to end on the cpu target: authored OpenMP trajectories for the shipped saxpy task, every step
compiled with g++ and evaluated for real, merged into a graph."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from regrapht.graph.build import build_graph
from regrapht.graph.model import INITIAL, ReGraph
from regrapht.graph.relabel import OfflineRelabeler
from regrapht.graph.store import dumps_graph, loads_graph
from regrapht.graph.trajectory import read_trajectories
from regrapht.graph.validate import validate_graph

FIXTURE = Path(__file__).parent / "fixtures" / "saxpy_openmp.jsonl"

pytestmark = pytest.mark.skipif(
    shutil.which("g++") is None, reason="g++ is needed to evaluate cpu candidates"
)


@pytest.mark.slow  # every step compiled and evaluated for real: about 30 s on 2 cores
def test_cpu_build_with_real_evaluation() -> None:
    from regrapht.eval import EvalConfig, TimingConfig
    from regrapht.graph.verify import EvalVerifier

    timing = TimingConfig(
        warmup_rounds=1, min_rounds=3, budget_s=0.2, serial_budget_s=0.3, serial_max_rounds=5
    )
    trajs = [t for _, t in read_trajectories(FIXTURE)]
    g = ReGraph("cpu")
    with EvalVerifier(config=EvalConfig(seeds=1, timing_config=timing)) as verifier:
        report = build_graph(g, trajs, OfflineRelabeler(embedder=None), verifier, verifier.starting_code)
    # the two trajectories' first steps are the same code change: one example, reused by the second
    assert (report.merged, report.cut, report.dropped, report.steps_merged) == (1, 1, 0, 3), report
    assert set(g.edges) == {
        (INITIAL, "parallelize"),
        ("parallelize", "simd_vectorization"),
        ("parallelize", "loop_unrolling"),
    }
    first = g.edge(INITIAL, "parallelize")
    assert first.stats.verified == 1
    for x in first.examples:
        assert x.before == verifier.task("saxpy").serial_source()  # started from the task's serial code
        assert x.speedup is not None and x.speedup.value > 0 and x.gpu is None
    simd = g.edge("parallelize", "simd_vectorization").examples[0]
    assert simd.verified and simd.speedup is not None  # measured against the previous step's code
    wrong = g.edge("parallelize", "loop_unrolling")
    assert wrong.stats.failure_kinds == {"unplanned": 1} and wrong.examples[0].message
    cut = next(r for r in g.ledger.values() if r.outcome == "cut")
    assert "step 1 (unroll loops): wrong_answer" in cut.reason
    assert [i for i in validate_graph(g) if i.level == "error"] == []
    assert dumps_graph(loads_graph(dumps_graph(g))) == dumps_graph(g)


def test_the_verifier_releases_bench_data_of_tasks_it_has_passed():
    """Trajectories come grouped by task: moving on frees the last task's bench data and that of
    prepared tasks whose trajectories were all dropped, so the prefetcher is never left waiting."""
    from regrapht.graph.verify import EvalVerifier

    class Recorder:
        def __init__(self) -> None:
            self.released: list[str] = []

        def release(self, task) -> None:
            self.released.append(task.id)

    verifier = EvalVerifier()
    verifier._evaluator = recorder = Recorder()
    verifier._prepared = ["saxpy", "sum_of_squares", "spmv_csr", "gemv"]
    verifier._move_to(verifier.task("saxpy"))
    assert recorder.released == []
    verifier._move_to(verifier.task("spmv_csr"))  # sum_of_squares was dropped before verification
    assert recorder.released == ["saxpy", "sum_of_squares"]
    verifier._move_to(verifier.task("gemv"))
    assert recorder.released == ["saxpy", "sum_of_squares", "spmv_csr"]
    verifier._evaluator = None
