"""benchmarks/torch_phases_cpu.py's report rows: every baseline's speedup and a failed baseline's reason
(session 12's GPU run printed `speedups: {"eager": null}` for every row: the row read a key the
record never has)."""

from __future__ import annotations

import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCH))

from torch_phases_cpu import phases, reference_phases, row  # noqa: E402

from regrapht.eval.record import Evaluation  # noqa: E402
from regrapht.eval.stats import speedup  # noqa: E402


def _run() -> dict:
    marks = {"hello": 1.0, "loaded": 1.5, "ready_for_timing": 2.0, "setup": 0.5, "timing": 3.5}
    return {"mode": "candidate", "marks": marks, "seconds": 4.0}


def test_phases_split_the_worker_run_and_set_the_baselines_setup_apart() -> None:
    p = phases(_run())
    assert p == {"start": 1.0, "load": 0.5, "correctness": 0.5, "baselines": 0.5, "timing": 1.0, "exit": 0.5, "total": 4.0}


def test_row_carries_every_baseline_speedup_and_why_one_is_missing() -> None:
    ev = Evaluation(task_id="relu", target="cuda", status="correct", message="", candidate_sha256="0")
    ev.speedups["eager"] = speedup([2.0, 2.0, 2.2], [1.0, 1.0, 1.1], "eager").to_dict()
    ev.integrity.append("baseline compile unavailable: RuntimeError: inductor failed")
    r = row("relu", ev, _run(), True, 3.0)
    assert r["speedups"] == {"eager": 2.0}
    assert r["integrity"] == ["baseline compile unavailable: RuntimeError: inductor failed"]
    assert r["reference_s"] == 3.0 and r["phases"]["total"] == 4.0 and r["first"] and r["reference"] is None


def test_reference_phases_split_its_worker_and_say_where_it_ran() -> None:
    marks = {"hello": 0.5, "reference_case": 0.7, "last:reference_case": 1.5, "baselines": 9.5}
    p = reference_phases({"mode": "reference", "target": "cuda", "marks": marks, "seconds": 9.75})
    assert p == {"start": 0.5, "cases": 1.0, "warm": 8.0, "exit": 0.25, "total": 9.75, "on": "device"}
    # no warm-up: a cuda task's reference on the host
    p = reference_phases({"mode": "reference", "target": "cpu", "marks": {"hello": 0.5, "last:reference_case": 1.5}, "seconds": 1.6})
    assert p["warm"] == 0.0 and p["on"] == "host" and p["exit"] == 1.6 - 1.5


def test_ready_first_gives_the_device_built_candidates_and_waits_only_when_none_is() -> None:
    import concurrent.futures
    import threading

    from torch_phases_cpu import ready_first

    slow = concurrent.futures.Future()
    done = concurrent.futures.Future()
    done.set_result(None)
    order = []
    for i in ready_first([[slow], [], [done]]):
        order.append(i)
        if len(order) == 2:  # the build finishes while the second candidate has its turn
            threading.Timer(0.05, slow.set_result, (None,)).start()
    assert order == [1, 2, 0]
