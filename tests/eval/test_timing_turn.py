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
