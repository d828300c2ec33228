"""Bench-data builds run side by side; serial timings run alone.

Building a task's bench data (drawing gigabytes of inputs, running the serial reference for its
outputs) is memory-bound work that several threads share well. Timing the serial reference is
not: measured on an H100 host, with four builds side by side a serial histogram's median rose from
110 to 263 ms. So a timing waits for the builds in flight to finish and holds new ones back until it
is done; the builds themselves, and the candidates on the device, go on as before.
"""

from __future__ import annotations

import threading


class QuietLock:
    """Shared `busy` sections, exclusive `quiet` ones; a waiting `quiet` goes before new `busy` ones,
    so a serial timing is never starved by a stream of builds. Not tied to threads: a section may
    end on another thread than the one that began it."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._busy = 0
        self._quiet = False
        self._waiting_quiet = 0

    def begin_busy(self) -> None:
        with self._cond:
            while self._quiet or self._waiting_quiet:
                self._cond.wait()
            self._busy += 1

    def end_busy(self) -> None:
        with self._cond:
            self._busy -= 1
            self._cond.notify_all()

    def begin_quiet(self) -> None:
        with self._cond:
            self._waiting_quiet += 1
            try:
                while self._quiet or self._busy:
                    self._cond.wait()
            finally:
                self._waiting_quiet -= 1
            self._quiet = True

    def end_quiet(self) -> None:
        with self._cond:
            self._quiet = False
            self._cond.notify_all()


class Section:
    """One build's hold on a QuietLock: busy, then quiet for its timing, then nothing. `release`
    ends whatever is held, so a build that fails midway never leaves the lock taken."""

    def __init__(self, lock: QuietLock):
        self.lock, self.state = lock, ""

    def busy(self) -> None:
        self.release()
        self.lock.begin_busy()
        self.state = "busy"

    def quiet(self) -> None:
        self.release()
        self.lock.begin_quiet()
        self.state = "quiet"

    def release(self) -> None:
        if self.state == "busy":
            self.lock.end_busy()
        elif self.state == "quiet":
            self.lock.end_quiet()
        self.state = ""
