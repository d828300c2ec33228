"""Serial timings one at a time, and in quiet.

Bench-data builds run side by side (`reference_threads`): drawing inputs and running the serial
reference for its outputs share a machine well. Timing the serial reference does not: two
memory-bound reference loops timed at once slow each other, and compiles, input draws, other
references' output runs and candidates' uploads beside a timing moved the same task's serial median
by up to 1.7x between runs of one batch on an H100 host (docs/benchmarks.md). The serial median is
the default reward's baseline, so a timing runs in a quiet section (`QuietGate`):

- work that loads the host's cores (a compile, a build's draws and output runs, a candidate's
  worker) holds the gate while it runs, side by side with other such work;
- a serial timing asks for the gate alone: from then on no new work starts, and the timing begins
  once the work in flight has ended, or after `max_wait_s` (then it is timed anyway, and says so).

Waiting for every build in flight on every timing was measured on an H100 host (2026-11-21, e723cfb):
timings queued behind multi-second draws and the evaluations per GPU-minute fell from 72.1 to 41.4.
That cost is paid here only when a task's serial baseline is not in the store of baselines
(`eval/serial_baselines.py`): once per machine, task and toolchain, not once per run.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator


class QuietGate:
    """Noisy work side by side; quiet sections (serial timings) one at a time, with no noisy work.

    Holds never nest within one thread: a thread that holds the gate and asks again while a quiet
    section is pending would wait for the section, which waits (up to `max_wait_s`) for it."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._active = 0  # holds of noisy work in flight
        self._state: str | None = None  # None, "pending" (waiting for work in flight), "running"
        self._exclusive = threading.Lock()  # one timing at a time, quiet or not

    # ---- noisy work -------------------------------------------------------------------------
    def hold(self, urgent: bool = False) -> Hold:
        """A hold for noisy work, taken now: waits while a quiet section is pending or running
        (`urgent`: only while one is running, for a worker that already holds the device)."""
        hold = Hold(self)
        hold.resume(urgent)
        return hold

    @contextlib.contextmanager
    def noisy(self) -> Iterator[None]:
        hold = self.hold()
        try:
            yield
        finally:
            hold.release()

    def _enter(self, urgent: bool) -> None:
        with self._cond:
            while self._state == "running" or (self._state == "pending" and not urgent):
                self._cond.wait()
            self._active += 1

    def _leave(self) -> None:
        with self._cond:
            self._active -= 1
            self._cond.notify_all()

    # ---- quiet sections ---------------------------------------------------------------------
    def begin(self, quiet: bool, max_wait_s: float) -> bool:
        """Start a timing: one at a time. With `quiet`, no new noisy work starts from now until
        `end`, and this waits for the holds in flight to end, up to `max_wait_s`. True when no noisy
        work was in flight as the timing began."""
        self._exclusive.acquire()
        if not quiet:
            with self._cond:
                return self._active == 0
        with self._cond:
            self._state = "pending"
            deadline = time.monotonic() + max_wait_s
            while self._active > 0:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self._cond.wait(left)
            self._state = "running"
            return self._active == 0

    def end(self) -> None:
        with self._cond:
            self._state = None
            self._cond.notify_all()
        self._exclusive.release()

    @property
    def active(self) -> int:
        with self._cond:
            return self._active


class Hold:
    """One piece of noisy work's hold on a `QuietGate`. `release` and `resume` may come from any
    thread; releasing a released hold is harmless."""

    def __init__(self, gate: QuietGate):
        self.gate, self.held = gate, False
        self.guard = threading.Lock()

    def resume(self, urgent: bool = False) -> None:
        with self.guard:
            if self.held:
                return
        self.gate._enter(urgent)
        with self.guard:
            self.held = True

    def release(self) -> None:
        with self.guard:
            if not self.held:
                return
            self.held = False
        self.gate._leave()


class TimingTurn:
    """A build's turn to time its serial reference: `take` waits for the turn (giving back the
    build's own hold first, so its timing does not wait for itself), `give_back` ends it (once, from
    any thread; again is harmless), so a build that fails midway never keeps it. A turn given back
    before it was taken (the reference process died while its request waited) is released at once
    if the request takes it later. `quiet` says, once taken, whether the timing began with no noisy
    work in flight."""

    def __init__(
        self, gate: QuietGate, hold: Hold | None = None, quiet: bool = True, max_wait_s: float = 30.0
    ):
        self.gate, self.hold, self.want_quiet, self.max_wait_s = gate, hold, quiet, max_wait_s
        self.held, self.over, self.quiet = False, False, False
        self.guard = threading.Lock()

    def take(self) -> None:
        if self.hold is not None:
            self.hold.release()
        quiet = self.gate.begin(self.want_quiet, self.max_wait_s)
        with self.guard:
            if self.over:
                self.gate.end()
                return
            self.held, self.quiet = True, quiet

    def give_back(self) -> None:
        with self.guard:
            self.over = True
            if self.held:
                self.held = False
                self.gate.end()


class PinnedTurn:
    """The turn of a timing that needs none: at a batch's end, with nothing else of the evaluator
    running, several tasks' serial timings run at once, each pinned to a physical core of its own
    (eval/settle.py), and so do not wait for one another on the gate. `quiet`: no noisy work ran."""

    quiet = True

    def take(self) -> None:
        pass

    def give_back(self) -> None:
        pass
