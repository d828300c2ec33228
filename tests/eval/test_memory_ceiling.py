"""A memory hog is stopped with a memory verdict whichever stops it first: the parent's RSS poll, or,
where the machine runs out before the poll sees the ceiling crossed, the kernel's out-of-memory
killer."""

from __future__ import annotations

import os
import signal
import threading

from regrapht.eval.runner import WorkerOutcome, oom_kills, run_worker
from regrapht.eval.verdicts import crash_message


def test_the_kernels_oom_kill_count_is_readable():
    count = oom_kills()
    assert count is not None and count >= 0


def test_a_sigkill_from_elsewhere_without_an_oom_kill_is_not_called_one(evaluator, reference_job):
    """The attribution needs the kernel's count to rise: a worker killed by someone else is reported
    as killed by the signal."""
    job, job_dir, _ = reference_job
    job["await_timing"] = True  # the worker then waits on its stdin, alive, until killed

    def kill_when_ready(message):
        if message.get("event") == "ready_for_timing":
            threading.Thread(target=lambda: os.kill(message_pid[0], signal.SIGKILL), daemon=True).start()
        if message.get("event") == "hello":
            message_pid[0] = message["pid"]
        return None

    message_pid = [0]
    before = oom_kills()
    outcome = run_worker(job, job_dir / "job.json", 10.0, 60.0, 1 << 30, on_message=kill_when_ready)
    assert outcome.signal_name == "SIGKILL"
    if oom_kills() == before:  # no OOM kill anywhere on the machine meanwhile
        assert not outcome.oom_killed
        assert "killed by SIGKILL" in crash_message(outcome, evaluator.config.memory_limit_gib)


def test_an_oom_kill_gets_a_memory_verdict(evaluator):
    outcome = WorkerOutcome(
        messages=[{"event": "calling", "case": 0, "run": 0}],
        returncode=-9,
        signal_name="SIGKILL",
        oom_killed=True,
        peak_rss=int(0.8 * (1 << 30)),
    )
    message = crash_message(outcome, evaluator.config.memory_limit_gib)
    assert "GiB of host memory" in message and "out-of-memory killer" in message
    assert "correctness case 1, run 1" in message and "0.80 GiB" in message

