"""One serial timing at a time.

Bench-data builds run side by side (`reference_threads`): drawing inputs and running the serial
reference for its outputs share a machine well. Timing the serial reference does not share it with
another timing: two memory-bound reference loops timed at once slow each other, and the serial
baseline (the reward's) with them. So each build takes its turn for its timing, and only for that;
its draws and output runs never wait. Waiting for builds in flight as well was measured on an H100
host (2026-11-21): it queued timings behind multi-second draws, and with four builds side by side
the evaluations per GPU-minute fell from 72.1 to 41.4.
"""

from __future__ import annotations

import threading


class TimingTurn:
    """A build's turn to time its serial reference: `take` waits for the turn, `give_back` ends it
    (once, from any thread; again is harmless), so a build that fails midway never keeps it. A turn
    given back before it was taken (the reference process died while its request waited) is
    released at once if the request takes it later."""

    def __init__(self, lock: threading.Lock):
        self.lock, self.held, self.over = lock, False, False
        self.guard = threading.Lock()

    def take(self) -> None:
        self.lock.acquire()
        with self.guard:
            if self.over:
                self.lock.release()
                return
            self.held = True

    def give_back(self) -> None:
        with self.guard:
            self.over = True
            if self.held:
                self.held = False
                self.lock.release()
