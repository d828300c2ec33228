"""Spans of a batch's work, for benchmarks that must say where the wall time went.

With REGRAPHT_TRACE naming a folder, every process (the parent, each lane) appends one JSON line per
span to a file of its own there: its kind (compile, bench build and its phases, serial timing, an
item on the device, a wait for one), its task, and its wall-clock start and end, comparable across
the processes of one host. `benchmarks/trace_report.py` turns the folder into per-lane figures.
Without the variable nothing is written and a span costs one lookup. Records never carry a span:
the trace is a measurement of the harness, not of a candidate."""

from __future__ import annotations

import contextlib
import json
import os
import threading
import time
from collections.abc import Iterator
from typing import Any, TextIO

ENV = "REGRAPHT_TRACE"
_lock = threading.Lock()
_files: dict[str, TextIO] = {}


def enabled() -> bool:
    return bool(os.environ.get(ENV))


def _file() -> TextIO | None:
    folder = os.environ.get(ENV)
    if not folder:
        return None
    # A file per process (and per folder): lines of several processes never interleave, and a
    # forked child does not write into its parent's buffer.
    key = f"{folder}\0{os.getpid()}"
    handle = _files.get(key)
    if handle is None:
        for stale in [k for k in _files if k.endswith(f"\0{os.getpid()}")]:
            _files.pop(stale).close()  # an earlier run's folder: one open file per process at a time
        os.makedirs(folder, exist_ok=True)
        # Open for the process's life (line-buffered): a span is one write, never a reopen.
        handle = open(os.path.join(folder, f"trace-{os.getpid()}.jsonl"), "a", buffering=1)  # noqa: SIM115
        handle.write(json.dumps({"kind": "process", "pid": os.getpid(), "start": time.time(),
                                 "end": time.time(), "gpus": os.environ.get("CUDA_VISIBLE_DEVICES")}) + "\n")  # fmt: skip
        _files[key] = handle
    return handle


def record(kind: str, start: float, end: float, **fields: Any) -> None:
    """One span, from wall-clock `start` to `end` (time.time()), when tracing is on."""
    if not enabled():
        return
    line = json.dumps({"kind": kind, "start": round(start, 4), "end": round(end, 4), **fields}, default=str)
    try:
        with _lock:
            handle = _file()
            if handle is not None:
                handle.write(line + "\n")
    except OSError:
        pass  # a full or vanished trace folder costs the trace, never the evaluation


@contextlib.contextmanager
def span(kind: str, **fields: Any) -> Iterator[dict[str, Any]]:
    """Record the enclosed work as one span; the yielded dict takes fields learned meanwhile."""
    if not enabled():
        yield fields
        return
    start = time.time()
    try:
        yield fields
    finally:
        record(kind, start, time.time(), **fields)
