"""A worker ended at its `done` message: the parent returns without waiting for its exit (on a GPU,
mostly the CUDA context's teardown), reads nothing it writes after `done`, and starts no other worker
until it is gone."""

from __future__ import annotations

import os
import subprocess
import threading
import time
from pathlib import Path

from regrapht.eval import runner
from regrapht.eval.runner import EXITS, run_worker

ROOT = Path(__file__).resolve().parents[2]


def _run(tmp_path: Path, name: str, linger: float, end_at_done: bool):
    job = tmp_path / f"{name}.json"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    began = time.monotonic()
    outcome = run_worker(
        {"linger": linger}, job, 20.0, 60.0, 1 << 30, env=env,
        module="tests.eval.slow_exit_worker", check=lambda message: message, end_at_done=end_at_done,
    )
    return outcome, time.monotonic() - began


def test_a_worker_ended_at_done_is_not_waited_for_and_its_late_writes_are_not_read(tmp_path):
    outcome, seconds = _run(tmp_path, "early", 3.0, end_at_done=True)
    assert outcome.ended_at_done and outcome.complete and outcome.channel_error is None
    assert outcome.returncode is None and outcome.signal_name is None and not outcome.oom_killed
    assert seconds < 2.5  # not the 3 s its exit takes
    EXITS.settle()


def test_waiting_for_the_exit_gives_the_same_verdict_fields(tmp_path):
    # Without end_at_done the parent reads on: the line written after `done` corrupts the channel.
    outcome, seconds = _run(tmp_path, "late", 0.4, end_at_done=False)
    assert not outcome.ended_at_done and seconds >= 0.4
    assert outcome.channel_error is not None and "after done" in outcome.channel_error


class SlowTeardown:
    """A process whose reaping takes `seconds` after its kill, as a GPU process's does while the driver
    tears down its context (a user-space sleep dies with SIGKILL at once, so it cannot stand in)."""

    def __init__(self, seconds: float) -> None:
        self.proc = subprocess.Popen(["sleep", "30"], start_new_session=True)
        self.pid, self.seconds, self.reaped_at = self.proc.pid, seconds, None

    def wait(self, timeout=None):
        time.sleep(self.seconds)
        code = self.proc.wait(timeout)
        self.reaped_at = time.monotonic()
        return code

    def kill(self):
        self.proc.kill()


def test_no_worker_starts_while_one_ended_at_done_is_still_exiting(tmp_path):
    exiting = SlowTeardown(1.0)
    EXITS.reap(exiting)
    opened: list[float] = []
    EXITS.then(lambda: opened.append(time.monotonic()))  # what the spare's context waits for
    began = time.monotonic()
    second, _ = _run(tmp_path, "second", 0.0, end_at_done=True)
    assert exiting.reaped_at is not None and exiting.reaped_at - began >= 0.9
    # CLOCK_MONOTONIC is one clock for every process of the machine
    assert second.complete and second.last("hello")["at"] >= exiting.reaped_at
    assert opened and opened[0] >= exiting.reaped_at - 1e-3
    EXITS.settle()
    EXITS.then(lambda: opened.append(-1.0))  # nothing exiting: at once
    assert opened[-1] == -1.0


class NeverExits:
    """A worker that stays after SIGKILL, as one stuck in an uninterruptible driver call does: its
    wait always times out. A wait without a bound would hang here; it is refused instead."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen(["sleep", "30"], start_new_session=True)
        self.pid = self.proc.pid
        self.waits: list = []

    def wait(self, timeout=None):
        self.waits.append(timeout)
        if timeout is None:
            raise AssertionError("a worker's exit was waited for without a bound")
        time.sleep(timeout)
        raise subprocess.TimeoutExpired("stuck", timeout)

    def kill(self):
        pass


def test_a_worker_that_never_exits_is_given_up_on_within_the_bound(tmp_path, monkeypatch):
    monkeypatch.setattr(runner, "EXIT_WAIT_S", 0.5)
    stuck = NeverExits()
    try:
        assert runner._kill_group(stuck) is False and None not in stuck.waits  # killed, waited 1.5 s at most
        EXITS.reap(stuck)
        began = time.monotonic()
        second, _ = _run(tmp_path, "after_stuck", 0.0, end_at_done=True)
        assert time.monotonic() - began < 5.0  # the bound, plus a worker's start
        assert second.complete and any(f"worker pid {stuck.pid} had not exited" in n for n in second.notes)
        third, _ = _run(tmp_path, "later", 0.0, end_at_done=True)
        assert third.notes == []  # reported once, then not waited for again
        assert EXITS.settle() == []
    finally:
        stuck.proc.kill()
        stuck.proc.wait()


def test_end_workers_ends_the_running_worker_and_every_later_one(tmp_path, monkeypatch):
    # A stopping service ends its workers; an evaluation still running then goes on to its next
    # candidate, whose worker must not outlive the service either.
    monkeypatch.setattr(runner, "_ENDING", threading.Event(), raising=False)
    job = tmp_path / "long.json"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    outcomes: list = []

    def long_worker() -> None:  # says done, then stays 30 s; the parent waits for its exit
        outcomes.append(run_worker({"linger": 30.0}, job, 60.0, 90.0, 1 << 30, env=env,
                                   module="tests.eval.slow_exit_worker", check=lambda message: message))  # fmt: skip

    began = time.monotonic()
    first = threading.Thread(target=long_worker)
    first.start()
    while not runner._LIVE and time.monotonic() - began < 30:
        time.sleep(0.01)
    assert runner.end_workers() == 1
    first.join(timeout=20)
    assert not first.is_alive() and outcomes[0].signal_name == "SIGKILL"
    later = time.monotonic()
    long_worker()  # started after end_workers: ended at its start
    assert outcomes[1].signal_name == "SIGKILL" and time.monotonic() - later < 10
    assert not runner._LIVE
