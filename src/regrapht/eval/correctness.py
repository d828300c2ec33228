"""Judging raw output buffers against the reference: guards, untouched inputs, unwritten elements,
dtype-aware tolerance with exact NaN/Inf matching, and agreement between two runs."""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from math import nan

import numpy as np

from regrapht.tasks.model import Arg, Tolerance


@dataclass
class Mismatch:
    count: int
    total: int
    first_index: int
    expected: object
    actual: object
    max_abs_error: float
    max_rel_error: float
    field: str = ""  # the field of a struct or complex element that differs ("" for plain numbers)
    field_tolerance: Tolerance | None = None

    def describe(self, name: str, tolerance: Tolerance, what: str | None = None) -> str:
        if self.field_tolerance is not None:
            tolerance = self.field_tolerance
        rule = what or (
            "differ exactly" if tolerance.kind == "exact" else f"differ beyond {tolerance.describe()}"
        )
        if self.field:
            name = f"{name}`, field `{self.field}"
        return (
            f"`{name}`: {self.count} of {self.total} elements {rule}; first at index "
            f"{self.first_index}: expected {_fmt(self.expected)}, got {_fmt(self.actual)}"
            + (
                f" (max abs error {self.max_abs_error:.3g}, max rel error {self.max_rel_error:.3g})"
                if np.isfinite(self.max_abs_error) and self.max_abs_error > 0
                else ""
            )
        )


def _fmt(value: object) -> str:
    if isinstance(value, (float, np.floating)):
        return f"{float(value):.9g}"
    return str(value)


def compare(actual: np.ndarray, expected: np.ndarray, tolerance: Tolerance) -> Mismatch | None:
    """None when actual matches expected under the tolerance; NaN and Inf must match exactly."""
    if actual.shape != expected.shape:
        return Mismatch(
            max(actual.size, expected.size),
            expected.size,
            0,
            f"{expected.size} elements",
            f"{actual.size} elements",
            float("inf"),
            float("inf"),
        )
    if expected.dtype.names or expected.dtype.kind == "c":
        return _compare_fields(actual, expected, tolerance)
    if expected.dtype.kind == "f":
        count, first = _in_parallel(_float_mismatches, actual, expected, tolerance)
    else:
        count, first = _in_parallel(_exact_mismatches, actual, expected, tolerance)
    if count == 0:
        return None
    abs_err, rel_err = max_errors(actual, expected) if expected.dtype.kind == "f" else (nan, nan)
    return Mismatch(
        count, expected.size, first, expected[first].item(), actual[first].item(), abs_err, rel_err
    )


def _compare_fields(actual: np.ndarray, expected: np.ndarray, tolerance: Tolerance) -> Mismatch | None:
    """A struct or complex array, field by field with each field's tolerance: the first field that
    differs is reported, with whole elements as expected and actual."""
    is_complex = expected.dtype.kind == "c"
    names = ("re", "im") if is_complex else expected.dtype.names
    for name in names:
        if is_complex:
            a, e = (actual.real, expected.real) if name == "re" else (actual.imag, expected.imag)
        else:
            a, e = actual[name], expected[name]
        rule = tolerance.for_field(name, e.dtype.kind == "f")
        found = compare(np.ascontiguousarray(a), np.ascontiguousarray(e), rule)
        if found is not None:
            found.field, found.field_tolerance = name, rule
            found.expected, found.actual = expected[found.first_index].item(), actual[found.first_index].item()
            return found
    return None


# Bench outputs run to hundreds of MB: judged in slices that stay in cache, in float64, and the
# slices spread over threads (NumPy releases the GIL inside its loops).
_CHUNK = 1 << 18
_PARALLEL_SPAN = 16 * _CHUNK  # elements per thread's share; smaller arrays stay on the caller's thread
_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def _threads() -> ThreadPoolExecutor:
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(
                max_workers=max(1, min(8, os.cpu_count() or 1)), thread_name_prefix="regrapht-compare"
            )
        return _pool


def _in_parallel(count_in, actual: np.ndarray, expected: np.ndarray, tolerance: Tolerance) -> tuple[int, int]:
    """(count, first index) over the whole array, from `count_in(actual, expected, tolerance)` run on
    spans of it; the first mismatch is the earliest span's first."""
    if expected.size <= 2 * _PARALLEL_SPAN:
        return count_in(actual, expected, tolerance)
    starts = range(0, expected.size, _PARALLEL_SPAN)
    parts = _threads().map(
        lambda lo: count_in(actual[lo : lo + _PARALLEL_SPAN], expected[lo : lo + _PARALLEL_SPAN], tolerance),
        starts,
    )
    count, first = 0, 0
    for lo, (n, at) in zip(starts, parts):
        if n and not count:
            first = lo + at
        count += n
    return count, first


def _exact_mismatches(actual: np.ndarray, expected: np.ndarray, tolerance: Tolerance) -> tuple[int, int]:
    bad = actual != expected
    count = int(np.count_nonzero(bad))
    return count, (int(np.argmax(bad)) if count else 0)


def _float64_slices(actual: np.ndarray, expected: np.ndarray):
    """(start, actual slice, expected slice), each slice in float64."""
    for start in range(0, expected.size, _CHUNK):
        yield (
            start,
            actual[start : start + _CHUNK].astype(np.float64),
            expected[start : start + _CHUNK].astype(np.float64),
        )


@np.errstate(invalid="ignore", over="ignore")
def _float_mismatches(actual: np.ndarray, expected: np.ndarray, tolerance: Tolerance) -> tuple[int, int]:
    """(count, first index) of elements outside the tolerance; NaN and Inf must match exactly."""
    count, first = 0, 0
    atol, rtol = (0.0, 0.0) if tolerance.kind == "exact" else (tolerance.atol, tolerance.rtol)
    for start, a, e in _float64_slices(actual, expected):
        diff = np.subtract(a, e)
        np.abs(diff, out=diff)
        limit = np.abs(e)
        limit *= rtol
        limit += atol
        bad = ~(diff <= limit)
        # NaN and Inf must match exactly, whatever the limit (an infinite one admits anything).
        special = ~(np.isfinite(a) & np.isfinite(e))
        if special.any():
            same = (a == e) | (np.isnan(a) & np.isnan(e))
            bad[special] = ~same[special]
        n = int(np.count_nonzero(bad))
        if n and not count:
            first = start + int(np.argmax(bad))
        count += n
    return count, first


def max_errors(actual: np.ndarray, expected: np.ndarray) -> tuple[float, float]:
    """Largest absolute and relative error over the elements finite in both arrays."""
    if expected.dtype.kind != "f" or not expected.size or actual.shape != expected.shape:
        return 0.0, 0.0
    worst_abs = worst_rel = 0.0
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for _, a, e in _float64_slices(actual, expected):
            finite = np.isfinite(a) & np.isfinite(e)
            diff = np.abs(np.where(finite, a - e, 0.0))
            rel = np.where(finite & (e != 0), diff / np.abs(e), 0.0)
            worst_abs, worst_rel = max(worst_abs, float(diff.max())), max(worst_rel, float(rel.max()))
    return worst_abs, worst_rel


def guard_damage(raw: np.ndarray, guard: int, canary: int) -> str | None:
    """Where a buffer's guard bands were overwritten, in bytes before the start or past the end."""
    before = np.flatnonzero(raw[:guard] != canary)
    after = np.flatnonzero(raw[raw.size - guard :] != canary)
    parts = []
    if before.size:
        parts.append(f"{before.size} byte(s) in the {guard} bytes before its start")
    if after.size:
        parts.append(f"{after.size} byte(s) in the {guard} bytes past its end (first at end+{int(after[0])})")
    return " and ".join(parts) or None


def data(raw: np.ndarray, guard: int, arg: Arg) -> np.ndarray:
    return raw[guard : raw.size - guard].view(arg.dtype.numpy)


def unwritten(runs: list[np.ndarray], poison_bytes: list[int], arg: Arg) -> np.ndarray:
    """Elements that hold their poison pattern in every run: never written by the candidate."""
    mask = None
    itemsize = arg.dtype.numpy.itemsize
    for values, byte in zip(runs, poison_bytes):
        if itemsize not in (1, 2, 4, 8):  # structs and complex128: compared byte by byte
            same = np.all(values.view(np.uint8).reshape(-1, itemsize) == byte, axis=1)
            mask = same if mask is None else mask & same
            continue
        pattern = np.frombuffer(bytes([byte]) * itemsize, dtype=arg.dtype.numpy)[0]
        same = values.view(f"u{itemsize}") == pattern.view(f"u{itemsize}")
        mask = same if mask is None else mask & same
    assert mask is not None
    return mask
