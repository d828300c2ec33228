"""Retrieval of failure examples and their place in the step prompt; the advisor as a user meets it;
the graph report."""

from __future__ import annotations

from regrapht.graph.advise import advise, gain_interval, input_warnings
from regrapht.graph.merge import LabeledStep, merge_trajectory
from regrapht.graph.model import Example, FailureLabel, ReGraph, Speedup
from regrapht.graph.report import TARGETS, final_kernels, graph_report, render_markdown, splice
from regrapht.graph.retrieve import retrieve_examples
from regrapht.graph.store import default_graph_path, load_graph

SAXPY = """#include <cuda_runtime.h>
__global__ void saxpy_kernel(int n, float a, const float* x, float* y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
void saxpy(int n, float a, const float* x, float* y) {
    saxpy_kernel<<<(n + 255) / 256, 256>>>(n, a, x, y);
}
"""


def ex(traj: str, before: str, after: str, **kw) -> Example:
    return Example(kw.pop("task", "t"), f"think {traj}", f"detail {traj}", before, after, traj, 0, "m", **kw)


def test_retrieval_returns_failures_only_when_asked_and_the_prompt_shows_them() -> None:
    g = ReGraph("cuda")
    good = ex("good", "a b c", "a b c d", status="correct", speedup=Speedup(2.0), machine="G")
    bad = ex(
        "bad",
        "a b c",
        "a b c e",
        status="wrong_answer",
        message="3 of 100 outputs differ",
        machine="G",
        failure=FailureLabel("missing_sync", "the tile is read before every thread wrote it"),
    )
    merge_trajectory(g, [LabeledStep("shared_memory_tiling", good)])
    merge_trajectory(g, [LabeledStep("shared_memory_tiling", bad)])
    plain = retrieve_examples(g, "a b c", "shared_memory_tiling", k=3)
    assert [r.example.trajectory for r in plain] == ["good"]
    both = retrieve_examples(g, "a b c", "shared_memory_tiling", k=1, failures=1)
    assert [(r.example.trajectory, r.is_failure) for r in both] == [("good", False), ("bad", True)]
    assert both[1].to_dict()["failure"]["kind"] == "missing_sync"

    from regrapht.llm.templates import load_template

    tpl = load_template("optimize_step")
    base = {
        "task": {"name": "t", "description": "d", "function_name": "f", "source": "s"},
        "target": "cuda",
        "current_code": "a b c",
        "method": {"name": "shared_memory_tiling", "definition": "tiles"},
        "examples": [],
    }
    failure = {
        "kind": "missing_sync",
        "why": "the tile is read before every thread wrote it",
        "detail": "d",
        "status": "wrong_answer",
        "message": "3 of 100 outputs differ",
        "after": "a b c e",
    }
    shown = tpl.render(**base, failures=[failure])[-1]["content"]
    assert "What went wrong here before" in shown and "missing_sync" in shown and "3 of 100" in shown
    assert "What went wrong" not in tpl.render(**base, failures=[])[-1]["content"]


def test_input_warnings() -> None:
    assert "empty" in input_warnings("  \n", "cuda")[0]
    assert "does not look like" in input_warnings("Hello, please make my code fast", "cuda")[0]
    assert "__global__" in input_warnings("void f(int* a) { a[0] = 1; }", "cuda")[0]
    assert input_warnings(SAXPY, "cuda") == []


def test_gain_interval() -> None:
    one = [ex("a", "x", "y", status="correct", speedup=Speedup(2.0, 1.5, 2.5))]
    assert gain_interval(one) == (1.5, 2.5)
    many = [ex(str(i), "x", str(i), status="correct", speedup=Speedup(v)) for i, v in enumerate((2.0, 2.2, 1.8))]
    lo, hi = gain_interval(many)
    assert lo < 2.0 < hi


def test_advise_on_a_saxpy_kernel_ranks_by_evidence_and_shows_an_example() -> None:
    g = load_graph(default_graph_path("cuda"))
    advice = advise(g, SAXPY, top=5)
    names = [s.method for s in advice.suggestions]
    # one-sample outliers (a 236x cooperative_groups step, 52x tree reductions) do not lead
    assert names[0] not in ("cooperative_groups", "block_tree_reduction")
    assert "cooperative_groups" not in names[:3] and "block_tree_reduction" not in names[:3]
    assert all(len(s.examples) == 1 for s in advice.suggestions), "--examples 1 shows one example each"
    assert advice.suggestions[0].stats.tasks >= 3
    assert advice.warnings == []


def test_report_targets_and_floor_fraction() -> None:
    g = ReGraph("cuda")
    first = ex("t1", "serial", "port", task="saxpy", status="correct", speedup=Speedup(100.0), machine="G", time_s=2e-3, floor_s=1e-3)
    second = ex("t1", "port", "tiled", task="saxpy", status="correct", speedup=Speedup(4.0), machine="G", time_s=5e-4, floor_s=4e-4)
    merge_trajectory(g, [LabeledStep("parallelize", first), LabeledStep("shared_memory_tiling", second)])
    finals = final_kernels(g)
    assert finals["saxpy"].example.after == "tiled" and finals["saxpy"].cumulative_speedup == 400.0
    assert abs(finals["saxpy"].floor_fraction - 0.8) < 1e-9
    report = graph_report(g, split_of=lambda task: "train")
    assert report["median_floor_fraction"] == 0.8 and report["verified_examples"] == 2
    by_name = {t["name"]: t for t in report["targets"]}
    assert set(TARGETS) <= set(by_name)
    assert by_name["median_floor_fraction"]["met"] and not by_name["train_tasks"]["met"]
    text = render_markdown(report, "regrapht graph report")
    assert "| train_tasks | >= 60 | 1 | **not met** |" in text and "80%" in text
    doc = "# Title\n\nprose\n<!-- graph-report:cuda begin -->\nold\n<!-- graph-report:cuda end -->\nmore\n"
    out = splice(doc, "cuda", text)
    assert "old" not in out and out.startswith("# Title") and out.endswith("more\n") and "80%" in out


def test_timings_file_times_kernels_built_before_times_were_recorded(tmp_path) -> None:
    from regrapht.graph.report import Timing, code_sha, load_timings, save_timings, timings_path

    g = ReGraph("cuda")
    old = ex("t1", "serial", "port", task="saxpy", status="correct", speedup=Speedup(9.0), machine="NVIDIA H200")
    merge_trajectory(g, [LabeledStep("parallelize", old)])
    assert final_kernels(g)["saxpy"].floor_fraction is None
    path = timings_path(tmp_path / "cuda.json")
    assert path.name == "cuda.timings.json"
    save_timings(path, {code_sha("port"): Timing(2e-3, 1e-3, "NVIDIA H100 80GB HBM3")}, {code_sha("port"): "saxpy"})
    timings = load_timings(path)
    final = final_kernels(g, timings)["saxpy"]
    assert final.floor_fraction == 0.5 and final.timing.machine == "NVIDIA H100 80GB HBM3"
    row = graph_report(g, split_of=lambda t: "train", timings=timings)["final_kernels"][0]
    assert row["timed_on"] == "NVIDIA H100 80GB HBM3" and row["floor_fraction"] == 0.5


def test_a_failed_attempt_from_another_task_never_raises_an_edges_weight() -> None:
    from regrapht.graph.advise import policy_weight
    from regrapht.graph.model import EdgeStats

    one = EdgeStats(1, 1, 0, 0, {}, 1, None, {}, verified_tasks=1)
    with_failure = EdgeStats(2, 1, 0, 1, {"race": 1}, 2, None, {}, verified_tasks=1)
    assert policy_weight(with_failure) < policy_weight(one)


def test_report_counts_distinct_verified_examples_and_canonical_methods_on_two_tasks() -> None:
    g = ReGraph("cuda")
    ok = {"status": "correct", "speedup": Speedup(2.0), "machine": "G"}
    # the same code change reached through two orderings lands on two edges: one distinct example
    merge_trajectory(g, [LabeledStep("parallelize", ex("a", "s", "p", task="saxpy", **ok)),
                         LabeledStep("vectorized_access", ex("a", "p", "v", task="saxpy", **ok))])
    merge_trajectory(g, [LabeledStep("parallelize", ex("b", "s", "p2", task="saxpy", **ok)),
                         LabeledStep("grid_stride_loop", ex("b", "p2", "g", task="saxpy", **ok)),
                         LabeledStep("vectorized_access", ex("b", "p", "v", task="saxpy", **ok))])
    merge_trajectory(g, [LabeledStep("parallelize", ex("c", "s", "q", task="gemv", **ok)),
                         LabeledStep("my_own_trick", ex("c", "q", "r", task="gemv", **ok))])
    failed = ex("d", "q", "bad", task="gemv", status="wrong_answer", failure=FailureLabel("race", "why"), machine="G")
    merge_trajectory(g, [LabeledStep("parallelize", ex("c", "s", "q", task="gemv", **ok)),
                         LabeledStep("vectorized_access", failed)])
    report = graph_report(g, split_of=lambda task: "train")
    assert report["verified_examples"] == 6  # s->p, p->v (twice, once counted), s->p2, p2->g, s->q, q->r
    assert report["method_names"] == ["grid_stride_loop", "parallelize", "vectorized_access"]
    assert report["new_methods"] == ["my_own_trick"]
    # vectorized_access has a failure on gemv but verified examples on saxpy only
    assert report["single_task_methods"] == ["grid_stride_loop", "vectorized_access"]
    assert report["failure_examples"] == 1
    text = render_markdown(report, "regrapht graph report")
    assert "(on a single task: grid_stride_loop, vectorized_access)" in text and "my_own_trick" in text
    row = next(t for t in report["targets"] if t["name"] == "median_floor_fraction")
    row.update(value=0.5979, met=False)  # a miss that rounds to the goal is shown with its digits
    row.pop("note", None)
    assert "| median_floor_fraction | >= 0.60 | 0.5979 | **not met** |" in render_markdown(report, "r")


def test_floor_target_is_met_only_when_every_final_kernel_is_timed() -> None:
    g = ReGraph("cuda")
    timed = ex("t1", "serial", "port", task="saxpy", status="correct", speedup=Speedup(9.0), machine="G",
               time_s=1e-3, floor_s=9e-4)
    untimed = ex("t2", "serial", "port2", task="gemv", status="correct", speedup=Speedup(9.0), machine="G")
    merge_trajectory(g, [LabeledStep("parallelize", timed)])
    report = graph_report(g, split_of=lambda task: "train")
    row = next(t for t in report["targets"] if t["name"] == "median_floor_fraction")
    assert row["met"] and "note" not in row
    merge_trajectory(g, [LabeledStep("parallelize", untimed)])
    report = graph_report(g, split_of=lambda task: "train")
    row = next(t for t in report["targets"] if t["name"] == "median_floor_fraction")
    assert abs(report["median_floor_fraction"] - 0.9) < 1e-9 and not row["met"]
    assert "| median_floor_fraction | >= 0.60 | 0.90 (1 of 2 final kernels timed) | **not met** |" in render_markdown(
        report, "r"
    )
