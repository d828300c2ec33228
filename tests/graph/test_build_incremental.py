"""Incremental builds (a step is never measured twice, no duplicate examples) and failures as
evidence (expected failures reproduced, labelled and counted; unreproduced ones kept off)."""

from __future__ import annotations

import json

from regrapht.graph.advise import policy_weight
from regrapht.graph.build import build_graph
from regrapht.graph.merge import merge_graphs
from regrapht.graph.model import INITIAL, MESSAGE_CHARS, ReGraph, Speedup
from regrapht.graph.relabel import OfflineRelabeler
from regrapht.graph.store import dumps_graph, graph_to_dict, loads_graph
from regrapht.graph.trajectory import ExpectedFailure, Step, Trajectory
from regrapht.graph.validate import validate_graph, validate_graph_dict
from regrapht.graph.verify import StepCheck, Verdict

START = "void f(float* y, int n) { for (int i = 0; i < n; ++i) y[i] *= 2.0f; }"
CODES = {m: f"// {m}\n__global__ void k(float* y, int n) {{ /* {m} */ }}" for m in ("p", "v", "u", "s", "bad")}
METHODS = {"p": "parallelize", "v": "vectorized_access", "u": "loop_unrolling", "s": "shared_memory_tiling"}


def step(key: str, method: str | None = None, expect: ExpectedFailure | None = None) -> Step:
    return Step(f"think {key}", method or METHODS[key], f"detail {key}", CODES[key], expect)


def traj(*steps: Step, author: str = "a") -> Trajectory:
    return Trajectory("saxpy", "cuda", {"code": START}, tuple(steps), author)


class TableVerifier:
    """Verdicts by code; counts how often each step is evaluated."""

    def __init__(self, table: dict[str, Verdict] | None = None) -> None:
        self.table = table or {}
        self.calls: list[StepCheck] = []

    def __call__(self, check: StepCheck) -> Verdict:
        self.calls.append(check)
        for key, code in CODES.items():
            if code == check.after and key in self.table:
                return self.table[key]
        return Verdict("correct", "", Speedup(2.0, 1.9, 2.1), "NVIDIA H100", machine="NVIDIA H100")


def build(graph: ReGraph, trajectories: list[Trajectory], verifier: TableVerifier):
    return build_graph(graph, trajectories, OfflineRelabeler(embedder=None), verifier)


def test_a_deeper_trajectory_costs_only_its_new_steps() -> None:
    g = ReGraph("cuda")
    first = traj(step("p"), step("v"))
    v1 = TableVerifier()
    build(g, [first], v1)
    assert len(v1.calls) == 2
    # resume from the saved file: the verbatim prefix is neither measured nor added again
    g = loads_graph(dumps_graph(g))
    deeper = traj(step("p"), step("v"), step("u"))
    v2 = TableVerifier()
    report = build(g, [deeper], v2)
    assert [c.after for c in v2.calls] == [CODES["u"]]
    assert (report.steps_reused, report.steps_evaluated, report.steps_merged) == (2, 1, 1)
    rec = g.ledger[deeper.hash]
    assert (rec.outcome, rec.merged_steps, rec.reused_steps) == ("merged", 1, 2)
    assert len(g.edge(INITIAL, "parallelize").examples) == 1
    assert g.edge("vectorized_access", "loop_unrolling").examples[0].machine == "NVIDIA H100"
    assert [str(i) for i in validate_graph(g) if i.level == "error"] == []


def test_identical_steps_in_one_build_are_evaluated_once() -> None:
    g = ReGraph("cuda")
    v = TableVerifier()
    build(g, [traj(step("p"), step("v")), traj(step("p"), step("v"), step("u"), author="b")], v)
    assert len(v.calls) == 3
    assert sum(len(e.examples) for e in g.edges.values()) == 3


def test_the_same_code_on_another_edge_takes_the_measured_verdict() -> None:
    g = ReGraph("cuda")
    v = TableVerifier()
    # the same code change reached through another method name lands on another edge: a second
    # example, measured once
    build(g, [traj(step("p"), step("v")), traj(step("p"), step("v", "loop_unrolling"), author="b")], v)
    assert len(v.calls) == 2
    assert g.has_edge("parallelize", "loop_unrolling") and g.has_edge("parallelize", "vectorized_access")


def test_expected_failure_reproduced_is_a_labelled_failure() -> None:
    g = ReGraph("cuda")
    long = "error: " + "x" * 5000
    v = TableVerifier({"bad": Verdict("wrong_answer", long)})
    why = "two threads update the same bin without an atomic"
    t = traj(step("p"), step("bad", "shared_memory_tiling", ExpectedFailure("race", why)))
    report = build(g, [t], v)
    assert (report.merged, report.cut, report.failures_labelled, report.steps_failed) == (1, 0, 1, 0)
    x = g.edge("parallelize", "shared_memory_tiling").examples[0]
    assert x.failure is not None and (x.failure.kind, x.failure.why) == ("race", why)
    assert x.status == "wrong_answer" and len(x.message) <= MESSAGE_CHARS and x.message.startswith("error")
    st = g.edge("parallelize", "shared_memory_tiling").stats
    assert (st.failures, st.failure_kinds, st.verified) == (1, {"race": 1}, 0)
    assert [str(i) for i in validate_graph(g) if i.level == "error"] == []


def test_slower_failure_needs_its_whole_interval_below_one() -> None:
    g = ReGraph("cuda")
    v = TableVerifier({"bad": Verdict("correct", "", Speedup(0.8, 0.75, 0.85), "G", machine="G")})
    t = traj(step("p"), step("bad", "shared_memory_tiling", ExpectedFailure("bank_conflict", "stride 32")))
    build(g, [t], v)
    x = g.edge("parallelize", "shared_memory_tiling").examples[0]
    assert x.failure is not None and x.failure.kind == "bank_conflict" and not x.verified
    assert x.speedup is not None and x.speedup.value == 0.8
    # within the noise: not evidence of a slowdown
    g2 = ReGraph("cuda")
    v2 = TableVerifier({"bad": Verdict("correct", "", Speedup(0.95, 0.9, 1.02), "G", machine="G")})
    report = build(g2, [t], v2)
    assert report.unreproduced == 1 and not g2.has_edge("parallelize", "shared_memory_tiling")


def test_expected_failure_that_passes_is_reported_not_merged() -> None:
    g = ReGraph("cuda")
    t = traj(step("p"), step("bad", "shared_memory_tiling", ExpectedFailure("race", "a benign-looking race")))
    report = build(g, [t], TableVerifier())
    assert report.unreproduced == 1 and report.merged == 0
    assert any("expected failure not reproduced" in r for r in report.reasons)
    assert not g.has_edge("parallelize", "shared_memory_tiling")
    rec = g.ledger[t.hash]
    assert (rec.outcome, rec.merged_steps, rec.steps) == ("unreproduced", 1, 2)
    # a resumed build does not measure it again
    v = TableVerifier()
    assert build(g, [t], v).skipped == 1 and not v.calls
    assert [str(i) for i in validate_graph(g) if i.level == "error"] == []


def test_unplanned_failure_is_labelled_and_cuts() -> None:
    g = ReGraph("cuda")
    v = TableVerifier({"v": Verdict("compile_error", "no such intrinsic")})
    report = build(g, [traj(step("p"), step("v"), step("u"))], v)
    assert report.cut == 1 and len(v.calls) == 2
    x = g.edge("parallelize", "vectorized_access").examples[0]
    assert x.failure is not None and x.failure.kind == "unplanned"


def test_failures_count_against_policy_weight() -> None:
    g = ReGraph("cuda")
    build(g, [traj(step("p"), step("v"))], TableVerifier())
    clean = policy_weight(g.edge("parallelize", "vectorized_access").stats)
    v = TableVerifier({"bad": Verdict("wrong_answer", "off by one")})
    build(g, [traj(step("p"), step("bad", "vectorized_access", ExpectedFailure("out_of_bounds", "tail")), author="b")], v)
    assert policy_weight(g.edge("parallelize", "vectorized_access").stats) < clean


def _format_1_with_a_duplicate() -> dict:
    g = ReGraph("cuda")
    t1, t2 = traj(step("p"), step("v")), traj(step("p"), step("u"), author="b")
    build(g, [t1, t2], TableVerifier())
    d = graph_to_dict(g)
    # what a format-1 writer produced: both first ports on the edge, no machine or labels
    edge = next(e for e in d["edges"] if e["source"] == INITIAL)
    dup = json.loads(json.dumps(edge["examples"][0]))
    dup["trajectory"] = t2.hash
    edge["examples"].append(dup)
    d["version"] = 1
    for e in d["edges"]:
        for x in e["examples"]:
            for key in ("machine", "failure", "time_s", "floor_s"):
                x.pop(key)
        e["stats"]["taken"] = len(e["examples"])
        e["stats"]["verified"] = len(e["examples"])
    for r in d["trajectories"]:
        r.pop("reused_steps")
        r["merged_steps"] = 2
    edge["stats"] = None  # recomputed below
    from regrapht.graph.model import EdgeStats, Example

    edge["stats"] = EdgeStats.of([Example.from_dict(x) for x in edge["examples"]]).to_dict()
    d["nodes"][0]["visits"] = 2
    for n in d["nodes"]:
        if n["method"] == "parallelize":
            n["visits"] = 2
    return d


def test_format_1_files_load_deduplicated() -> None:
    d = _format_1_with_a_duplicate()
    issues = validate_graph_dict(d)
    assert not [i for i in issues if i.level == "error"], issues
    assert any("duplicate example" in i.message for i in issues if i.level == "warning")
    g = loads_graph(json.dumps(d))
    assert len(g.edge(INITIAL, "parallelize").examples) == 1
    assert sum(r.reused_steps for r in g.ledger.values()) == 1
    assert all(x.machine == "NVIDIA H100" for _, x in g.examples())  # the GPU was the machine
    again = graph_to_dict(g)
    assert again["version"] == 2 and not [i for i in validate_graph_dict(again) if i.level == "error"]
    # format 2 never holds a duplicate
    d2 = json.loads(json.dumps(again))
    first = d2["edges"][0]
    first["examples"].append(dict(first["examples"][0], trajectory=d2["trajectories"][0]["hash"], step=7))
    assert any("duplicate example" in i.message for i in validate_graph_dict(d2) if i.level == "error")


def test_merging_graphs_keeps_one_example_per_code_change() -> None:
    a, b = ReGraph("cuda"), ReGraph("cuda")
    build(a, [traj(step("p"), step("v"))], TableVerifier())
    build(b, [traj(step("p"), step("u"), author="b")], TableVerifier())
    m = merge_graphs(a, b)
    assert len(m.edge(INITIAL, "parallelize").examples) == 1
    assert [str(i) for i in validate_graph(m) if i.level == "error"] == []


def test_a_failure_label_must_match_its_verdict() -> None:
    g = ReGraph("cuda")
    v = TableVerifier({"bad": Verdict("wrong_answer", "off")})
    build(g, [traj(step("p"), step("bad", "shared_memory_tiling", ExpectedFailure("race", "r")))], v)
    d = graph_to_dict(g)
    x = next(e for e in d["edges"] if e["target"] == "shared_memory_tiling")["examples"][0]
    x["failure"]["kind"] = "no_such_kind"
    assert any("not a failure kind" in i.message for i in validate_graph_dict(d))
    x["failure"] = None
    assert any("must carry a failure label" in i.message for i in validate_graph_dict(d))


def test_a_build_stops_between_trajectories_when_asked() -> None:
    g = ReGraph("cuda")
    asked = []

    def stop() -> bool:
        asked.append(1)
        return len(asked) > 1  # after the first trajectory

    report = build_graph(
        g,
        [traj(step("p")), traj(step("p"), step("v"), author="b")],
        OfflineRelabeler(embedder=None),
        TableVerifier(),
        should_stop=stop,
    )
    assert report.stopped and report.merged == 1 and len(g.ledger) == 1
