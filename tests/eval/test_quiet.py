"""Bench builds side by side, serial timings alone (regrapht.eval.quiet)."""

from __future__ import annotations

import threading
import time

from regrapht.eval.quiet import QuietLock, Section


def started(target) -> threading.Thread:
    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    return thread


def test_builds_share_and_a_timing_waits_for_them_then_runs_alone():
    lock = QuietLock()
    events: list[str] = []
    lock.begin_busy()
    lock.begin_busy()  # two builds at once

    def timing():
        lock.begin_quiet()
        events.append("quiet")
        lock.end_quiet()

    waiter = started(timing)
    time.sleep(0.1)
    assert events == []  # builds in flight: the timing waits
    lock.end_busy()
    time.sleep(0.05)
    assert events == []
    lock.end_busy()
    waiter.join(timeout=2)
    assert events == ["quiet"]


def test_a_waiting_timing_goes_before_new_builds():
    lock = QuietLock()
    order: list[str] = []
    lock.begin_busy()

    def timing():
        lock.begin_quiet()
        order.append("timing")
        time.sleep(0.05)
        lock.end_quiet()

    def build():
        lock.begin_busy()
        order.append("build")
        lock.end_busy()

    first = started(timing)
    time.sleep(0.05)
    second = started(build)  # arrives while the timing waits: must not overtake it
    time.sleep(0.05)
    assert order == []
    lock.end_busy()
    first.join(timeout=2)
    second.join(timeout=2)
    assert order == ["timing", "build"]


def test_a_section_released_midway_leaves_the_lock_free():
    lock = QuietLock()
    section = Section(lock)
    section.busy()
    section.quiet()  # busy handed over to quiet, on whatever thread
    section.release()
    section.release()  # twice is harmless
    done = threading.Event()

    def timing():
        lock.begin_quiet()
        lock.end_quiet()
        done.set()

    started(timing)
    assert done.wait(timeout=2)
