from __future__ import annotations

import copy
import json

import pytest

from regrapht.graph.model import Example, GraphError, Node, ReGraph, Speedup
from regrapht.graph.store import (
    GraphFormatError,
    dumps_graph,
    graph_to_dict,
    load_graph,
    loads_graph,
    save_graph,
)
from regrapht.graph.validate import validate_graph_dict


def test_save_load_save_is_byte_identical(built: ReGraph, tmp_path) -> None:
    p1, p2 = tmp_path / "a.json", tmp_path / "b.json"
    save_graph(built, p1)
    save_graph(load_graph(p1), p2)
    assert p1.read_bytes() == p2.read_bytes()
    assert dumps_graph(loads_graph(p1.read_text())) == p1.read_text()


def test_file_is_ordered_and_versioned(built: ReGraph) -> None:
    d = graph_to_dict(built)
    assert (d["schema"], d["version"], d["target"], d["initial"]) == ("regrapht.graph", 2, "cuda", "initial")
    names = [n["method"] for n in d["nodes"]]
    assert names[0] == "initial" and names[1:] == sorted(names[1:])
    keys = [(e["source"], e["target"]) for e in d["edges"]]
    assert keys == sorted(keys)
    # statistics are derived from the examples and stored for readers
    e = next(e for e in d["edges"] if e["source"] == "initial")
    # five trajectories, two of which share their first port verbatim: four distinct examples
    assert e["stats"]["taken"] == 4 and e["stats"]["verified"] == 4
    assert e["stats"]["speedup"]["n"] == 4
    assert e["stats"]["gpus"]["NVIDIA H100 80GB HBM3"]["n"] == 4
    # the initial node is visited by every trajectory that was not dropped
    assert d["nodes"][0]["visits"] == 5


def test_edge_statistics(built: ReGraph) -> None:
    st = built.edge("parallelize", "shared_memory_tiling").stats
    assert (st.taken, st.verified, st.failures, st.tasks) == (3, 3, 0, 3)
    assert st.speedup is not None
    assert st.speedup["geomean"] == pytest.approx((6.0 * 3.0 * 1.8) ** (1 / 3), abs=1e-4)
    assert (st.speedup["min"], st.speedup["median"], st.speedup["max"]) == (1.8, 3.0, 6.0)
    fail = built.edge("parallelize", "loop_peeling").stats
    assert (fail.taken, fail.verified, fail.failures, fail.failure_kinds) == (1, 0, 1, {"unplanned": 1})
    assert fail.speedup is None
    slower = built.edge("loop_unrolling", "loop_unrolling").stats
    assert slower.speedup["faster"] == 0 and slower.geomean == 0.95


def _broken(built: ReGraph, mutate) -> list[str]:
    d = copy.deepcopy(graph_to_dict(built))
    mutate(d)
    return [str(i) for i in validate_graph_dict(d) if i.level == "error"]


@pytest.mark.parametrize(
    ("mutate", "expected"),
    [
        (
            lambda d: d.update(version=3),
            "$.version: this regrapht reads graph format versions 1, 2, the file says 3",
        ),
        (lambda d: d.update(target="gpu"), "$.target: must be one of ['cuda', 'cpu'], got 'gpu'"),
        (lambda d: d["nodes"].pop(0), "$.nodes: the initial node 'initial' is missing"),
        (
            lambda d: d["edges"][0]["examples"][0].update(status="ok"),
            "edges[0] (grid_stride_loop -> loop_unrolling).examples[0].status: 'ok' is not a status",
        ),
        (
            lambda d: d["edges"][0]["examples"][0].update(step="1"),
            "edges[0] (grid_stride_loop -> loop_unrolling).examples[0].step: must be int, got str '1'",
        ),
        (
            lambda d: d["edges"][0].update(target="nowhere"),
            "edges[0] (grid_stride_loop -> nowhere): refers to node 'nowhere', which is not in nodes",
        ),
        (
            lambda d: d["edges"][0]["stats"].update(taken=99),
            "edges[0] (grid_stride_loop -> loop_unrolling).stats: do not match the examples (differ in: taken)",
        ),
        (
            lambda d: d["nodes"][1].update(visits=7),
            "nodes[1] (bank_conflict_avoidance).visits: is 7, the edges say 1",
        ),
        (
            lambda d: d["edges"][0]["examples"][0].update(speedup={"value": -1.0}),
            "edges[0] (grid_stride_loop -> loop_unrolling).examples[0].speedup.value: a speedup must be > 0, got -1.0",
        ),
        (lambda d: d["edges"].append(copy.deepcopy(d["edges"][0])), "duplicate edge: also edges[0]"),
        (
            lambda d: d["trajectories"][0].update(merged_steps=0),
            ".merged_steps: is 0, the edges hold",
        ),
    ],
)
def test_validation_messages_are_precise(built: ReGraph, mutate, expected: str) -> None:
    errors = _broken(built, mutate)
    assert any(expected in e for e in errors), errors


def test_valid_graph_has_no_errors(built: ReGraph) -> None:
    assert [i for i in validate_graph_dict(graph_to_dict(built)) if i.level == "error"] == []


def test_loading_an_invalid_file_lists_every_error(built: ReGraph, tmp_path) -> None:
    d = graph_to_dict(built)
    d["target"] = "gpu"
    d["edges"][1]["examples"][0]["status"] = "fine"
    p = tmp_path / "bad.json"
    p.write_text(json.dumps(d))
    with pytest.raises(GraphFormatError) as info:
        load_graph(p)
    text = str(info.value)
    assert str(p) in text and "$.target" in text and "'fine' is not a status" in text
    with pytest.raises(GraphFormatError, match="line 1 column 1"):
        loads_graph("not json")


def test_graph_invariants() -> None:
    g = ReGraph("cpu")
    with pytest.raises(GraphError, match="target must be one of"):
        ReGraph("gpu")
    g.add_node(Node("parallelize", "d"))
    with pytest.raises(GraphError, match="already exists"):
        g.add_node(Node("parallelize", "d"))
    with pytest.raises(GraphError, match="does not exist"):
        g.add_edge("initial", "nowhere")
    with pytest.raises(GraphError, match="back to the initial node"):
        g.add_edge("parallelize", "initial")
    e = g.add_edge("parallelize", "parallelize")
    e.examples.append(
        Example("t", "", "", "a", "b", "h", 0, "p", status="correct", speedup=Speedup(2.0, 1.5, 2.5))
    )
    nxg = g.to_networkx()
    assert (
        nxg.has_edge("parallelize", "parallelize")
        and nxg.edges["parallelize", "parallelize"]["geomean"] == 2.0
    )
