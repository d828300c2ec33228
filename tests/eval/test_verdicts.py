"""The pure verdict functions, called directly: why a worker ended, where it was, the status ladder
of a run, late writes and where the time went."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from regrapht.eval.protocol import Event
from regrapht.eval.record import CaseResult, Evaluation
from regrapht.eval.runner import WorkerOutcome
from regrapht.eval.verdicts import crash_message, judge_run, late_writes, phases, where


def outcome(*messages: dict, **fields) -> WorkerOutcome:
    return WorkerOutcome(messages=list(messages), **fields)


HELLO = {"event": Event.HELLO, "pid": 1, "t": 0.1}
LOADED = {"event": Event.LOADED, "libs": ["candidate"], "t": 0.2}
CALLING = {"event": Event.CALLING, "lib": "candidate", "case": 2, "run": 1, "t": 0.3}
DONE = {"event": Event.DONE, "messages": 4, "t": 0.9}


def test_where_names_the_last_step_the_worker_reached() -> None:
    assert where(outcome()) == ""
    assert where(outcome(HELLO)) == " while loading the library"
    assert where(outcome(HELLO, LOADED, CALLING)) == " during correctness case 3, run 2"
    progress = {"event": Event.TIMING_PROGRESS, "round": 6}
    assert where(outcome(HELLO, LOADED, CALLING, progress)) == " while timing (round 7)"


def test_crash_messages_follow_the_ladder_of_causes() -> None:
    steps = (HELLO, LOADED, CALLING)
    assert "more than 2 GiB of host memory during correctness case 3" in crash_message(
        outcome(*steps, memory_exceeded=True, timed_out=True), 2.0
    )
    assert "out-of-memory killer" in crash_message(outcome(*steps, oom_killed=True, peak_rss=1 << 30), 2.0)
    timed_out = crash_message(outcome(*steps, timed_out=True, timeout_reason="made no progress for 5 s"), 2.0)
    assert timed_out.startswith("made no progress for 5 s during correctness case 3")
    oom = {"event": Event.CUDA_ERROR, "name": "cudaErrorMemoryAllocation", "text": "out of memory", "where": "x"}
    assert "out of memory on the device" in crash_message(outcome(*steps, oom), 2.0)
    error = {"event": Event.ERROR, "kind": "OSError", "text": "gone"}
    assert crash_message(outcome(*steps, error), 2.0) == "OSError: gone"
    sandbox = {"event": Event.SANDBOX, "landlock": 3, "seccomp": True, "reason": None}
    assert "the sandbox stopped the process" in crash_message(outcome(sandbox, signal_name="SIGSYS"), 2.0)
    assert "killed by SIGSEGV" in crash_message(outcome(*steps, signal_name="SIGSEGV"), 2.0)
    assert "result channel was corrupted" in crash_message(outcome(*steps, channel_error="bad"), 2.0)
    assert "ended on its own (exit status 0)" in crash_message(outcome(*steps, returncode=0), 2.0)
    assert crash_message(outcome(*steps, DONE, complete=True), 2.0) is None


def _ev() -> Evaluation:
    return Evaluation("t", "cpu", "correct", "", "x")


def test_judge_run_sets_the_status_and_leaves_timing_only_to_clean_runs() -> None:
    good = {0: CaseResult("a", {}, 0, "correct")}
    ev = _ev()
    assert judge_run(ev, outcome(HELLO, LOADED, DONE, complete=True), good, 2.0) is True
    assert ev.status == "correct" and len(ev.cases) == 1

    ev = _ev()
    error = {"event": Event.ERROR, "kind": "OSError", "text": "undefined symbol: foo"}
    assert judge_run(ev, outcome(HELLO, error), {}, 2.0) is False
    assert ev.status == "compile_error" and "does not load" in ev.message

    ev = _ev()
    wrong = {0: CaseResult("a", {}, 0, "correct"), 1: CaseResult("b", {}, 0, "wrong_answer", message="off")}
    assert judge_run(ev, outcome(HELLO, LOADED, DONE, complete=True, stopped_early=True), wrong, 2.0) is False
    assert (ev.status, ev.message) == ("wrong_answer", "off [b]")

    ev = _ev()
    assert judge_run(ev, outcome(HELLO, LOADED, CALLING, timed_out=True, timeout_reason="slow"), good, 2.0) is False
    assert ev.status == "timeout"


def test_a_run_that_ends_before_every_case_was_judged_is_no_pass() -> None:
    """Candidate code shares the worker's process: a `done` it writes itself ends the run early, and
    a clean-looking run with cases missing must not pass (nor reach the timing judge)."""
    good = {0: CaseResult("a", {}, 0, "correct")}
    ev = _ev()
    assert judge_run(ev, outcome(HELLO, LOADED, DONE, complete=True), good, 2.0, planned=3) is False
    assert ev.status == "runtime_error" and "1 of 3 correctness cases" in ev.message
    ev = _ev()
    assert judge_run(ev, outcome(HELLO, LOADED, DONE, complete=True), {}, 2.0, planned=1) is False
    ev = _ev()
    assert judge_run(ev, outcome(HELLO, LOADED, DONE, complete=True), good, 2.0, planned=1) is True


def test_late_writes_name_the_output_and_the_first_changed_element(tmp_path: Path) -> None:
    final = np.arange(8, dtype=np.float32)
    at_return = final.copy()
    at_return[5:] = 0
    path = tmp_path / "out.bin"
    at_return.tofile(path)
    message = late_writes([{"out": final}], [{"out": str(path)}])
    assert message is not None and "3 elements of `out`" in message and "first at index 5" in message


def test_phases_come_from_the_message_timestamps() -> None:
    timing = {"event": Event.TIMING, "samples": {}, "checks": [], "seconds": 0.4, "check_s": 0.1, "t": 0.8}
    case = {"event": Event.CASE_DONE, "lib": "candidate", "case": 0, "run": 1, "files": {}, "at_return": {},
            "t": 0.35}
    got = phases(outcome({**HELLO, "context_s": 0.05}, LOADED, case, timing, DONE, seconds=1.0))
    assert got == {"startup": 0.1, "cuda_context": 0.05, "correctness": 0.15, "timing": 0.4, "timing_checks": 0.1}
