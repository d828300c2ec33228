"""The spare worker of an evaluator: the next cuda candidate's process, started while the current one
runs, so the next candidate waits neither for Python nor (once the current measurement is over) for
its CUDA context. One spare at most; it loads no candidate code until a job is handed to it."""

from __future__ import annotations

import threading
from collections.abc import Callable

from regrapht.eval.runner import SpareWorker


class SparePool:
    """Holds at most one spare; starts none while `enabled()` is False (EvalConfig.spare_worker)."""

    def __init__(self, enabled: Callable[[], bool]):
        self.enabled = enabled
        self._spare: SpareWorker | None = None
        self._cuda_runs = 0
        self._closing = False
        self._lock = threading.Lock()

    def take(self) -> SpareWorker | None:
        """The spare started after the previous candidate, if any; the runner checks it is alive."""
        with self._lock:
            spare, self._spare = self._spare, None
        return spare

    def start(self, libcudart: str) -> None:
        """Start the next candidate's process as this one starts: Python comes up beside it (on other
        cores; it loads no candidate code and touches no device). A single evaluation gets none (from
        the second cuda candidate of an evaluator on)."""
        self._cuda_runs += 1
        if not self.enabled() or self._closing or self._cuda_runs < 2:
            return
        with self._lock:
            if self._spare is None:
                self._spare = SpareWorker(libcudart)

    def open_context(self) -> None:
        """The spare's CUDA context comes up once the running candidate is measured (or gone), so it
        overlaps that candidate's exit, the verdict and the next compile, never a measurement."""
        with self._lock:
            if self._spare is not None:
                self._spare.open_context()

    def discard(self) -> None:
        """End the spare, if any (a later `start` may make another)."""
        with self._lock:
            if self._spare is not None:
                self._spare.discard()
                self._spare = None

    def close(self) -> None:
        self._closing = True
        self.discard()
