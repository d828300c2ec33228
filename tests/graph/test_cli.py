from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from typer.testing import CliRunner

from regrapht.cli import app
from regrapht.graph.model import ReGraph
from regrapht.graph.store import load_graph, save_graph
from regrapht.graph.trajectory import write_trajectories

from .conftest import kernel

runner = CliRunner()


@pytest.fixture()
def graph_file(built: ReGraph, tmp_path: Path) -> Path:
    return save_graph(built, tmp_path / "g.json")


def test_stats_json(graph_file: Path) -> None:
    r = runner.invoke(app, ["graph", "stats", "--graph", str(graph_file), "--json"])
    assert r.exit_code == 0, r.output
    st = json.loads(r.output)
    # 17 steps, two of them the same first port: 16 distinct examples
    assert (st["nodes"], st["edges"], st["examples"], st["verified"], st["failures"]) == (9, 11, 16, 15, 1)
    assert st["distinct_examples"] == 16 and st["reused_steps"] == 1
    assert st["verified_share"] == round(15 / 16, 4) and st["distinct_tasks"] == 4
    assert st["trajectories"] == {"merged": 4, "cut": 1, "unreproduced": 0, "dropped": 0}
    assert st["failure_kinds"] == {"unplanned": 1}
    assert st["new_methods"] == ["loop_peeling"] and st["self_loops"] == 1
    assert (
        st["top_by_count"][0] | {} == st["top_by_count"][0] and st["top_by_count"][0]["source"] == "initial"
    )
    assert st["top_by_count"][0]["taken"] == 4
    assert [(e["source"], e["target"]) for e in st["top_by_gain"][:2]] == [
        ("initial", "parallelize"),
        ("parallelize", "shared_memory_tiling"),
    ]
    assert st["gpus"] == ["NVIDIA H100 80GB HBM3", "NVIDIA H200"]


def test_stats_text(graph_file: Path) -> None:
    r = runner.invoke(app, ["graph", "stats", "--graph", str(graph_file)])
    assert (
        r.exit_code == 0 and "Top transitions by gain" in r.output and "loop_peeling" not in r.output.split("Top")[0]
    )


def test_missing_shipped_graph_is_explained(tmp_path: Path, monkeypatch) -> None:
    import regrapht.cli.graph_cmd as cmd

    monkeypatch.setattr(cmd, "default_graph_path", lambda target: tmp_path / "graphs" / f"{target}.json")
    r = runner.invoke(app, ["graph", "stats"])
    text = " ".join(r.output.split())
    assert r.exit_code == 2
    assert (
        "no shipped cuda graph" in text and "Shipped graphs: none" in text and "regrapht graph build" in text
    )


def test_advise_json_ranks_by_measured_statistics(graph_file: Path, tmp_path: Path) -> None:
    k = tmp_path / "k.cu"
    k.write_text(kernel("vector_add_naive.cu"))
    r = runner.invoke(app, ["advise", str(k), "--graph", str(graph_file), "--json"])
    assert r.exit_code == 0, r.output
    adv = json.loads(r.output)
    assert list(adv["recognized"]) == ["parallelize"] and adv["position"] == ["parallelize"]
    ranked = [s["method"] for s in adv["suggestions"]]
    # shared_memory_tiling: 3 tasks, 3 verified of 3, geomean 3.19; grid_stride_loop 1 of 1 at 1.05;
    # loop_peeling: 0 of 1
    assert ranked == ["shared_memory_tiling", "grid_stride_loop", "loop_peeling"]
    top = adv["suggestions"][0]
    # policy weight: (3 tasks + 0.5) x verified share 4/5 x the gain shrunk by 3 measurements
    assert top["weight"] == pytest.approx(3.5 * 4 / 5 * math.exp(3 / 6 * math.log(3.188)), abs=2e-3)
    assert top["score"] == pytest.approx(top["weight"] * (0.25 + top["similarity"]), abs=2e-3)
    assert top["examples"] and top["examples"][0]["status"] == "correct"


def test_advise_serial_code_starts_at_initial(graph_file: Path, tmp_path: Path) -> None:
    k = tmp_path / "serial.cpp"
    k.write_text("void f(float* a, int n) { for (int i = 0; i < n; ++i) a[i] *= 2; }\n")
    r = runner.invoke(app, ["advise", str(k), "--graph", str(graph_file), "--target", "cuda", "--json"])
    adv = json.loads(r.output)
    assert adv["position"] == ["initial"] and adv["suggestions"][0]["method"] == "parallelize"


def test_advise_rich_output(graph_file: Path, tmp_path: Path) -> None:
    k = tmp_path / "k.cu"
    k.write_text(kernel("matmul_tiled.cu"))
    r = runner.invoke(app, ["advise", str(k), "--graph", str(graph_file)])
    assert r.exit_code == 0, r.output
    assert "shared_memory_tiling" in r.output and "Suggested next methods" in r.output
    assert "register_tiling" in r.output  # what followed tiling and unrolling in the matmul trajectory
    assert "+" in r.output and "why:" in r.output  # a worked example with its diff


def test_validate_and_merge(graph_file: Path, tmp_path: Path, trajs) -> None:
    assert runner.invoke(app, ["graph", "validate", str(graph_file)]).exit_code == 0
    data = json.loads(graph_file.read_text())
    data["edges"][0]["stats"]["taken"] = 42
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    r = runner.invoke(app, ["graph", "validate", str(bad), "--json"])
    assert r.exit_code == 1 and "do not match the examples" in r.output
    other = ReGraph("cuda")
    other_file = save_graph(other, tmp_path / "empty.json")
    out = tmp_path / "merged.json"
    r = runner.invoke(app, ["graph", "merge", str(other_file), str(graph_file), "--out", str(out)])
    assert r.exit_code == 0, r.output
    assert len(list(load_graph(out).examples())) == 16


def test_build_no_verify_and_resume(trajs, tmp_path: Path) -> None:
    src = tmp_path / "t.jsonl"
    write_trajectories(trajs, src)
    out = tmp_path / "g.json"
    r = runner.invoke(app, ["graph", "build", str(src), "--out", str(out), "--no-verify", "--no-embed"])
    assert r.exit_code == 0, r.output
    g = load_graph(out)
    assert len(g.ledger) == 5 and {x.status for _, x in g.examples()} == {"unverified"}
    first = out.read_bytes()
    r = runner.invoke(app, ["graph", "build", str(src), "--out", str(out), "--no-verify", "--no-embed"])
    assert r.exit_code == 0 and "resuming" in r.output and "5 skipped" in " ".join(r.output.split())
    assert out.read_bytes() == first


def test_build_reports_bad_trajectory_file(tmp_path: Path) -> None:
    src = tmp_path / "t.jsonl"
    src.write_text('{"task": "t", "target": "cuda", "steps": []}\n')
    r = runner.invoke(app, ["graph", "build", str(src), "--out", str(tmp_path / "g.json"), "--no-verify"])
    assert r.exit_code == 2 and "t.jsonl:1" in r.output


def test_retry_cut_needs_verification(tmp_path: Path) -> None:
    src = tmp_path / "t.jsonl"
    src.write_text("")
    r = runner.invoke(
        app, ["graph", "build", str(src), "--out", str(tmp_path / "g.json"), "--no-verify", "--retry-cut"]
    )
    assert r.exit_code == 2 and "--no-verify" in " ".join(r.output.split())


def test_show_html(graph_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "g.html"
    r = runner.invoke(app, ["graph", "show", "--html", str(out), "--graph", str(graph_file)])
    assert r.exit_code == 0, r.output
    page = out.read_text()
    assert "<script" in page and "http://" not in page.replace(
        'xmlns="http://www.w3.org/2000/svg"', ""
    ).replace('"http://www.w3.org/2000/svg"', "")


def test_build_prints_a_line_per_trajectory_without_a_terminal(trajs, tmp_path: Path) -> None:
    # a lent machine's log is not a terminal: each trajectory gets a plain line (a live bar would
    # print nothing before the end, and a build stopped by its call limit would show nothing)
    src = tmp_path / "t.jsonl"
    write_trajectories(trajs, src)
    out = tmp_path / "g.json"
    r = runner.invoke(app, ["graph", "build", str(src), "--out", str(out), "--no-verify", "--no-embed", "--time-limit", "600"])
    assert r.exit_code == 0, r.output
    lines = [line for line in r.output.splitlines() if line.startswith("[")]
    assert len(lines) == 5 and "merged" in lines[0] and "evaluated" in lines[0]
    assert "reused" in " ".join(r.output.split())


def test_advise_refuses_empty_input_and_warns_on_non_code(graph_file: Path, tmp_path: Path) -> None:
    empty = tmp_path / "empty.cu"
    empty.write_text("\n  \n")
    r = runner.invoke(app, ["advise", str(empty), "--graph", str(graph_file)])
    assert r.exit_code == 2 and "is empty" in " ".join(r.output.split())  # rich wraps by the path's length
    prose = tmp_path / "notes.cu"
    prose.write_text("Please make my kernel faster, it is slow on big inputs\n")
    r = runner.invoke(app, ["advise", str(prose), "--graph", str(graph_file)])
    assert r.exit_code == 0 and "does not look like C/C++/CUDA code" in " ".join(r.output.split())
