"""Bench builds side by side, their serial timings one at a time (regrapht.eval.timing_turn)."""

from __future__ import annotations

import threading
import time

from regrapht.eval.timing_turn import TimingTurn


def test_timings_take_turns_and_a_turn_is_given_back_once():
    lock = threading.Lock()
    first, second = TimingTurn(lock), TimingTurn(lock)
    first.take()
    got = threading.Event()

    def wait_for_turn():
        second.take()
        got.set()

    threading.Thread(target=wait_for_turn, daemon=True).start()
    time.sleep(0.1)
    assert not got.is_set()  # the first timing runs: the second waits
    first.give_back()
    first.give_back()  # again: harmless, and it must not free the second's turn
    assert got.wait(timeout=2)
    assert lock.locked()
    second.give_back()
    assert not lock.locked()


def test_a_turn_given_back_from_another_thread_frees_the_lock():
    lock = threading.Lock()
    turn = TimingTurn(lock)
    turn.take()
    thread = threading.Thread(target=turn.give_back)
    thread.start()
    thread.join()
    assert not lock.locked()


def test_a_turn_given_back_before_its_request_got_it_is_not_kept():
    """The reference process died while its request for the turn waited: the build gives the turn
    back first, and the request, taking it later, lets it go at once."""
    lock = threading.Lock()
    other, dead = TimingTurn(lock), TimingTurn(lock)
    other.take()
    request = threading.Thread(target=dead.take, daemon=True)
    request.start()
    dead.give_back()  # nothing held yet: only marks the turn over
    other.give_back()
    request.join(timeout=2)
    assert not request.is_alive() and not lock.locked()
