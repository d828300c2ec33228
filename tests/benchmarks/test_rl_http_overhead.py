"""The service-overhead benchmark (benchmarks/rl_http_overhead.py): its interval and verdict, and one
tiny end-to-end run on the cpu target."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

from rl_http_overhead import paired_interval, verdict  # noqa: E402


def test_the_interval_brackets_the_median_and_narrows_with_agreement() -> None:
    tight = paired_interval([1.01, 1.0, 1.02, 1.01, 1.0, 1.01])
    assert tight["ci_low"] <= tight["value"] <= tight["ci_high"] and tight["ci_high"] <= 1.02
    wide = paired_interval([0.8, 1.3, 0.9, 1.2, 1.0, 1.1])
    assert wide["ci_high"] - wide["ci_low"] > tight["ci_high"] - tight["ci_low"]


@pytest.mark.parametrize(
    ("ratio", "expected"),
    [((1.01, 0.99, 1.04), "met"), ((1.2, 1.1, 1.3), "missed"), ((1.03, 0.98, 1.09), "undecided")],
)
def test_verdict_against_the_five_percent_target(ratio, expected) -> None:
    value, low, high = ratio
    assert verdict({"value": value, "ci_low": low, "ci_high": high}) == expected


@pytest.mark.slow  # a real evaluator, a service and four batches: some 30 s on 2 cores
def test_a_tiny_run_reports_every_field(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    subprocess.run([sys.executable, str(ROOT / "benchmarks/rl_http_overhead.py"), "--target", "cpu", "--reward",
                    "correctness", "--groups", "1", "--group-size", "3", "--mix", "1,1,1", "--rounds", "2", "--replay-rounds", "3",
                    "--out", str(out)], env=env, check=True, capture_output=True, timeout=600)  # fmt: skip
    result = json.loads(out.read_text())
    assert result["statuses"] == {"correct": 1, "wrong_answer": 1, "compile_error": 1}
    assert len(result["in_process_s"]) == len(result["http_s"]) == 2 and result["verdict"] in ("met", "missed", "undecided")
    ratio = result["ratio_http_over_in_process"]
    assert ratio["ci_low"] <= ratio["value"] <= ratio["ci_high"] and result["request_bytes"] > 0
    cost = result["service_cost"]
    assert cost["rounds"] == 3 and cost["extra_s_per_batch"]["ci_low"] <= cost["extra_s_per_batch"]["ci_high"]
    assert max(cost["in_process_s"]) < min(result["in_process_s"])  # replayed: no evaluator work
