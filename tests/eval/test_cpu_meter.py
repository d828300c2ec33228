"""The machine's other CPU activity during a timing, from /proc (regrapht.eval.cpu_meter)."""

from __future__ import annotations

import os
import subprocess
import sys
import time

from regrapht.eval.cpu_meter import BackgroundMeter, busy_ticks, process_ticks

BURN = "while True: pass\n"


def test_a_timed_process_own_cpu_time_is_not_background():
    burner = subprocess.Popen([sys.executable, "-c", BURN])
    try:
        meter = BackgroundMeter(burner.pid)
        before_busy, before_own = busy_ticks(), process_ticks(burner.pid)
        deadline = time.monotonic() + 20
        while (process_ticks(burner.pid) or 0) - (before_own or 0) < 20 and time.monotonic() < deadline:
            time.sleep(0.05)  # until the burner has spent at least 0.2 s of its own (100 ticks/s)
        cores = meter.cores()
        own = (process_ticks(burner.pid) or 0) - (before_own or 0)
        busy = (busy_ticks() or 0) - (before_busy or 0)
    finally:
        burner.kill()
        burner.wait()
    assert own > 0 and busy >= own  # all cores' busy time includes the burner's
    assert cores is not None and 0.0 <= cores <= (os.cpu_count() or 1)


def test_an_unknown_process_gives_no_reading():
    assert BackgroundMeter(None).cores() is None
    assert process_ticks(2**22 + 12345) is None  # beyond pid_max: no such process


def test_a_short_timing_is_read_over_half_a_second_not_one_clock_tick():
    """/proc counts 10 ms ticks: over a 2 ms timing one stray tick would read as 5 cores busy."""
    from regrapht.eval.cpu_meter import MIN_WINDOW_S

    idle = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        time.sleep(0.2)  # past its start-up
        meter = BackgroundMeter(idle.pid)
        began = time.monotonic()
        cores = meter.cores()
        assert time.monotonic() - began >= MIN_WINDOW_S - 0.01
    finally:
        idle.kill()
        idle.wait()
    assert cores is not None and 0.0 <= cores <= (os.cpu_count() or 1)
