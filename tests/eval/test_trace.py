"""The batch trace (eval/trace.py) and its report (benchmarks/trace_report.py): nothing written unless
asked; when asked, an evaluator's compiles, bench build phases, waits and items land in one file per
process, and the report says where the time went."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from regrapht.eval import Evaluator, trace
from tests.eval.conftest import candidate, quick_config

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from trace_report import load, process_report, union_seconds  # noqa: E402


def test_nothing_is_written_without_the_variable(tmp_path, monkeypatch):
    monkeypatch.delenv(trace.ENV, raising=False)
    with trace.span("item", task="t") as fields:
        fields["status"] = "correct"
    trace.record("wait", 1.0, 2.0)
    assert not trace.enabled() and list(tmp_path.iterdir()) == []


def test_a_span_records_its_fields_and_wall_clock_bounds(tmp_path, monkeypatch):
    folder = tmp_path / "trace"
    monkeypatch.setenv(trace.ENV, str(folder))
    before = time.time()
    with trace.span("item", task="t") as fields:
        fields["status"] = "correct"
    rows = next(iter(load(folder).values()))
    assert rows[0]["kind"] == "process"
    item = rows[1]
    assert item["kind"] == "item" and item["task"] == "t" and item["status"] == "correct"
    assert before - 0.01 <= item["start"] <= item["end"] <= time.time() + 0.01


def test_an_evaluators_batch_is_traced_and_reported(build_cache, vec_scale, tmp_path, monkeypatch):
    folder = tmp_path / "trace"
    monkeypatch.setenv(trace.ENV, str(folder))
    items = [(vec_scale, candidate("correct.cpp"), "cpu"), (vec_scale, candidate("wrong.cpp"), "cpu")]
    with Evaluator(quick_config(tmp_path / "cache")) as evaluator:
        results = evaluator.evaluate_many(items)
    spans = load(folder)
    assert len(spans) == 1  # this process only: workers and compilers write nothing
    rows = next(iter(spans.values()))
    kinds = [r["kind"] for r in rows]
    assert kinds.count("item") == 2 and kinds.count("wait") == 2
    first_wait = next(r for r in rows if r["kind"] == "wait")
    # What the first pending item lacked as the device began to wait: compiles in flight, bench data.
    unbuilt, needs_bench = first_wait["first"]
    assert isinstance(unbuilt, int) and isinstance(needs_bench, bool)
    assert kinds.count("compile") >= 2  # the candidates (a fresh cache), and serial.cpp
    build = next(r for r in rows if r["kind"] == "bench_build")
    assert build["task"] == vec_scale.id and set(build["marks"]) == {"key", "hold", "drawn"}
    assert build["start"] <= build["marks"]["key"] <= build["marks"]["drawn"] <= build["end"]
    report = process_report(rows, min(r["start"] for r in rows), top=4)
    assert report["items"] == 2
    assert [r.status for r in results] == [s["status"] for s in rows if s["kind"] == "item"]
    phases = report["bench_builds"][0]
    assert set(phases) >= {"serial_compile", "hold_wait", "draw_write", "reference", "first_item_at"}
    assert report["compiles"]["count"] == kinds.count("compile")
    json.dumps(report)  # the report is what --json writes


def test_union_counts_overlapping_spans_once():
    assert union_seconds([(0, 2), (1, 3), (5, 6), (5.5, 5.7)]) == 4
