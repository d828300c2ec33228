from __future__ import annotations

import json

import pytest

from regrapht.graph.build import build_graph
from regrapht.graph.model import INITIAL, ReGraph
from regrapht.graph.relabel import OfflineRelabeler
from regrapht.graph.store import load_graph, save_graph
from regrapht.graph.trajectory import (
    Trajectory,
    TrajectoryFormatError,
    parse_trajectory,
    read_trajectories,
    write_trajectories,
)

from .conftest import RecordedVerifier


def test_built_graph_shape(built: ReGraph) -> None:
    assert set(built.method_nodes()) == {
        "parallelize",
        "shared_memory_tiling",
        "warp_shuffle_reduction",
        "loop_unrolling",
        "register_tiling",
        "bank_conflict_avoidance",
        "grid_stride_loop",
        "loop_peeling",
    }
    # teacher names were relabeled onto canonical methods, and the raw names are kept on the examples
    raws = {x.raw_method for x in built.edge(INITIAL, "parallelize").examples}
    assert raws == {"Parallelism", "naive CUDA kernel", "parallelization"}
    outcomes = sorted(r.outcome for r in built.ledger.values())
    assert outcomes == ["cut", "merged", "merged", "merged", "merged"]


def test_failing_step_cuts_the_trajectory_and_is_recorded(trajs) -> None:
    table = {("matmul", "bob", 1): ("compile_error", None, None)}
    g = ReGraph("cuda")
    verifier = RecordedVerifier(trajs, table)
    report = build_graph(g, [trajs[1]], OfflineRelabeler(embedder=None), verifier)
    assert (report.cut, report.steps_merged, report.steps_failed) == (1, 2, 1)
    assert len(verifier.calls) == 2  # steps after the failure are never evaluated
    failed = g.edge("parallelize", "shared_memory_tiling")
    assert failed.stats.failures == 1 and failed.stats.failure_kinds == {"unplanned": 1}
    assert not g.has_node("loop_unrolling")
    (rec,) = g.ledger.values()
    assert rec.outcome == "cut" and rec.merged_steps == 2 and "step 1 (tiling): compile_error" in rec.reason


def test_retry_cut_rebuilds_a_cut_trajectory_once_its_step_passes(trajs) -> None:
    table = {("matmul", "bob", 1): ("compile_error", None, None)}
    g = ReGraph("cuda")
    build_graph(g, [trajs[1]], OfflineRelabeler(embedder=None), RecordedVerifier(trajs, table))
    assert g.has_edge("parallelize", "shared_memory_tiling")
    # a plain resume leaves the cut trajectory alone
    verifier = RecordedVerifier(trajs)
    report = build_graph(g, [trajs[1]], OfflineRelabeler(embedder=None), verifier)
    assert report.skipped == 1 and not verifier.calls
    # with retry_cut its failure example goes, and every step is verified again
    verifier = RecordedVerifier(trajs)
    report = build_graph(g, [trajs[1]], OfflineRelabeler(embedder=None), verifier, retry_cut=True)
    assert (report.merged, report.cut, report.skipped) == (1, 0, 0)
    assert len(verifier.calls) == len(trajs[1].steps)
    (rec,) = g.ledger.values()
    assert rec.outcome == "merged"
    assert all(not ex.failed for _, ex in g.examples())
    assert sorted(ex.step for _, ex in g.examples()) == list(range(len(trajs[1].steps)))


def test_forget_trajectory_removes_its_examples_and_emptied_edges(trajs) -> None:
    g = ReGraph("cuda")
    build_graph(g, trajs[:2], OfflineRelabeler(embedder=None), RecordedVerifier(trajs))
    h = trajs[1].hash
    mine = sum(1 for _, ex in g.examples() if ex.trajectory == h)
    others = sum(1 for _, ex in g.examples() if ex.trajectory != h)
    assert g.forget_trajectory(h) == mine > 0
    assert h not in g.ledger and sum(1 for _ in g.examples()) == others
    assert all(e.examples for e in g.edges.values())


def test_slower_steps_are_kept_as_negative_evidence(built: ReGraph) -> None:
    e = built.edge("grid_stride_loop", "loop_unrolling")
    (x,) = e.examples
    assert x.verified and x.speedup is not None and x.speedup.value == 0.97


def test_before_of_each_step_is_the_previous_code(trajs, built: ReGraph) -> None:
    t = trajs[1]
    steps = [x for _, x in built.examples() if x.trajectory == t.hash]
    steps.sort(key=lambda x: x.step)
    assert steps[0].before == t.start_code
    for prev, cur in zip(steps, steps[1:]):
        assert cur.before == prev.after


def test_build_resumes_and_skips_merged(trajs, tmp_path) -> None:
    relabel = OfflineRelabeler(embedder=None)
    g = ReGraph("cuda")
    saved = []
    build_graph(
        g, trajs[:3], relabel, RecordedVerifier(trajs), on_trajectory=lambda ev: saved.append(ev.outcome)
    )
    assert saved == ["merged", "merged", "merged"]
    path = save_graph(g, tmp_path / "g.json")
    resumed = load_graph(path)
    verifier = RecordedVerifier(trajs)
    report = build_graph(resumed, trajs, relabel, verifier)
    assert (report.skipped, report.merged, report.cut) == (3, 1, 1)
    assert {c.task for c in verifier.calls} == {"saxpy", "vector_sum"}  # nothing re-verified
    full = ReGraph("cuda")
    build_graph(full, trajs, relabel, RecordedVerifier(trajs))
    assert len(list(resumed.examples())) == len(list(full.examples()))


def test_wrong_target_and_missing_start_are_dropped(trajs) -> None:
    g = ReGraph("cpu")
    report = build_graph(g, trajs[:1], OfflineRelabeler(embedder=None), RecordedVerifier(trajs))
    assert report.dropped == 1 and "does not match the graph's 'cpu'" in report.reasons[0]
    t = Trajectory("saxpy", "cuda", "serial", trajs[3].steps, "x")
    g2 = ReGraph("cuda")
    report = build_graph(g2, [t], OfflineRelabeler(embedder=None), RecordedVerifier(trajs))
    assert report.dropped == 1 and "no task loader" in report.reasons[0]


def test_unverified_build(trajs) -> None:
    g = ReGraph("cuda")
    build_graph(g, trajs, OfflineRelabeler(embedder=None))
    assert {x.status for _, x in g.examples()} == {"unverified"}
    # two of the five trajectories share their first port verbatim: one example of it
    assert g.edge(INITIAL, "parallelize").stats.unverified == 4


def test_trajectory_jsonl_round_trip_and_hash(trajs, tmp_path) -> None:
    p = tmp_path / "t.jsonl"
    write_trajectories(trajs, p)
    back = [t for _, t in read_trajectories(p)]
    assert back == trajs
    assert len({t.hash for t in trajs}) == len(trajs)
    noted = Trajectory(
        trajs[0].task, "cuda", trajs[0].start, trajs[0].steps, trajs[0].author, notes="reviewed"
    )
    assert noted.hash == trajs[0].hash  # notes do not change identity


@pytest.mark.parametrize(
    ("record", "message"),
    [
        ({"task": "t", "target": "gpu", "steps": [{}]}, "target must be one of"),
        ({"task": "t", "target": "cuda", "steps": []}, "'steps' must be a non-empty list"),
        ({"task": "t", "target": "cuda", "start": "random", "steps": [{}]}, "start must be"),
        (
            {"task": "t", "target": "cuda", "steps": [{"think": "", "method": "m", "detail": ""}]},
            "steps[0] is missing ['code']",
        ),
        (
            {
                "task": "t",
                "target": "cuda",
                "steps": [{"think": "", "method": " ", "detail": "", "code": "x"}],
            },
            "steps[0].method must name a method",
        ),
        ({"task": "t", "target": "cuda", "steps": [], "extra": 1}, "unknown keys ['extra']"),
    ],
)
def test_malformed_trajectories_are_reported(record: dict, message: str) -> None:
    with pytest.raises(TrajectoryFormatError) as info:
        parse_trajectory(record, "f.jsonl:3")
    assert "f.jsonl:3" in str(info.value) and message in str(info.value)


def test_bad_json_line_names_file_and_line(tmp_path) -> None:
    p = tmp_path / "t.jsonl"
    p.write_text(
        json.dumps(
            {
                "task": "t",
                "target": "cuda",
                "steps": [{"think": "", "method": "m", "detail": "", "code": "x"}],
            }
        )
        + "\n\n{oops\n"
    )
    with pytest.raises(TrajectoryFormatError, match=r"t.jsonl:3: not valid JSON"):
        list(read_trajectories(p))
