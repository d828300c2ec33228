"""benchmarks/eval_throughput.py's run options: a shared secret must be real hex of enough bytes
(runs compared draw the same inputs by it), batch and copy counts positive, and a later batch's
summary says what it ran."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

from eval_throughput import batch_summary  # noqa: E402

from regrapht.eval.record import Evaluation  # noqa: E402


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "eval_throughput.py"), "--skip-throughput", "--skip-repeatability", *args],
        capture_output=True, text=True, timeout=120, cwd=ROOT, env={"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin"},
    )  # fmt: skip


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--secret", "zz"], "--secret must be hexadecimal"),
        (["--secret", "ab" * 8 + "a"], "--secret must be hexadecimal"),
        (["--secret", "ab" * 8], "--secret needs at least 16 bytes"),  # 8 bytes
        (["--batches", "0"], "--batches must be at least 1"),
    ],
)
def test_bad_options_are_refused_with_a_reason(args, says):
    done = _run(*args)
    assert done.returncode == 2
    assert says in done.stderr


def test_a_later_batch_is_summed_up_from_its_records():
    records = [
        Evaluation("t", "cuda", "correct", "", "0", seconds={"worker": 0.5, "device_loop": 0.75}),
        Evaluation("t", "cuda", "compile_error", "", "1", seconds={"device_loop": 0.0}),
    ]

    class Pool:
        taken = [("gpu1", "gpu0", "a"), ("gpu0", "gpu1", "b")]
        lane_stats = {"timeline": [{"lane": "gpu0", "kind": "call"}], "began_wall": 12.5}

    out = batch_summary(records, 2.0, Pool(), taken_before=1)
    assert out["wall_s"] == 2.0 and out["evals_per_minute_wall"] == 60.0
    assert out["statuses"] == {"correct": 1, "compile_error": 1}
    assert out["worker_s"] == 0.5 and out["device_loop_s"] == 0.75
    assert out["groups_taken"] == [["gpu0", "gpu1", "b"]]  # this batch's only
    assert out["lane_began_wall"] == 12.5 and out["lane_timeline"] == Pool.lane_stats["timeline"]
