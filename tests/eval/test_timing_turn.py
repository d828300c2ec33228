"""Bench builds side by side, their serial timings one at a time and alone (regrapht.eval.timing_turn)."""

from __future__ import annotations

import threading
import time

from regrapht.eval.timing_turn import QuietGate, TimingTurn


def _in_thread(target) -> tuple[threading.Thread, threading.Event]:
    done = threading.Event()

    def run():
        target()
        done.set()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, done


def test_timings_take_turns_and_a_turn_is_given_back_once():
    gate = QuietGate()
    first, second = TimingTurn(gate), TimingTurn(gate)
    first.take()
    _, got = _in_thread(second.take)
    time.sleep(0.1)
    assert not got.is_set()  # the first timing runs: the second waits
    first.give_back()
    first.give_back()  # again: harmless, and it must not free the second's turn
    assert got.wait(timeout=2)
    _, third = _in_thread(TimingTurn(gate).take)
    time.sleep(0.1)
    assert not third.is_set()  # the second still holds the turn
    second.give_back()
    assert third.wait(timeout=2)


def test_a_turn_given_back_from_another_thread_ends_it():
    gate = QuietGate()
    turn = TimingTurn(gate)
    turn.take()
    thread = threading.Thread(target=turn.give_back)
    thread.start()
    thread.join()
    _, got = _in_thread(TimingTurn(gate).take)
    assert got.wait(timeout=2)


def test_a_turn_given_back_before_its_request_got_it_is_not_kept():
    """The reference process died while its request for the turn waited: the build gives the turn
    back first, and the request, taking it later, lets it go at once."""
    gate = QuietGate()
    other, dead = TimingTurn(gate), TimingTurn(gate)
    other.take()
    request = threading.Thread(target=dead.take, daemon=True)
    request.start()
    dead.give_back()  # nothing held yet: only marks the turn over
    other.give_back()
    request.join(timeout=2)
    assert not request.is_alive()
    _, got = _in_thread(TimingTurn(gate).take)
    assert got.wait(timeout=2)  # nobody keeps the turn


def test_a_quiet_timing_waits_for_noisy_work_in_flight_and_stops_new_work():
    gate = QuietGate()
    compile_in_flight = gate.hold()
    turn = TimingTurn(gate, max_wait_s=10.0)
    _, timing_began = _in_thread(turn.take)
    time.sleep(0.1)
    assert not timing_began.is_set()  # a compile still runs
    _, new_work_started = _in_thread(lambda: gate.hold().release())
    time.sleep(0.1)
    assert not new_work_started.is_set()  # asked for quiet: no new work starts
    compile_in_flight.release()
    assert timing_began.wait(timeout=2) and turn.quiet
    time.sleep(0.1)
    assert not new_work_started.is_set()  # nor while the timing runs
    turn.give_back()
    assert new_work_started.wait(timeout=2)
    assert gate.active == 0


def test_a_worker_that_holds_the_device_goes_before_a_pending_timing_not_a_running_one():
    gate = QuietGate()
    build = gate.hold()
    turn = TimingTurn(gate, max_wait_s=10.0)
    _, timing_began = _in_thread(turn.take)
    time.sleep(0.1)
    worker = gate.hold(urgent=True)  # pending only: the worker resumes at once
    assert gate.active == 2
    worker.release()
    build.release()
    assert timing_began.wait(timeout=2)
    _, resumed = _in_thread(lambda: gate.hold(urgent=True).release())
    time.sleep(0.1)
    assert not resumed.is_set()  # a timing that runs is never disturbed
    turn.give_back()
    assert resumed.wait(timeout=2)


def test_a_timing_waits_no_longer_than_its_limit_and_says_it_was_not_quiet():
    gate = QuietGate()
    stuck = gate.hold()
    turn = TimingTurn(gate, max_wait_s=0.2)
    began = time.monotonic()
    turn.take()
    assert 0.15 < time.monotonic() - began < 2.0
    assert not turn.quiet
    turn.give_back()
    stuck.release()
    stuck.release()  # again: harmless
    assert gate.active == 0


def test_a_build_gives_back_its_own_hold_when_its_timing_asks_for_quiet():
    """The build that asks for the turn holds the gate for its draws and output runs: its timing
    must not wait for itself."""
    gate = QuietGate()
    hold = gate.hold()
    turn = TimingTurn(gate, hold, max_wait_s=10.0)
    began = time.monotonic()
    turn.take()
    assert time.monotonic() - began < 1.0 and turn.quiet
    turn.give_back()


def test_without_quiet_timings_still_take_turns_but_work_goes_on():
    gate = QuietGate()
    work = gate.hold()
    turn = TimingTurn(gate, quiet=False)
    turn.take()  # does not wait for the work in flight
    assert not turn.quiet
    _, started = _in_thread(lambda: gate.hold().release())
    assert started.wait(timeout=2)
    turn.give_back()
    work.release()
