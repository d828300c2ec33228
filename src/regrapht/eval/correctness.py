"""Judging raw output buffers against the reference: guards, untouched inputs, unwritten elements,
dtype-aware tolerance with exact NaN/Inf matching, and agreement between two runs."""

from __future__ import annotations

from dataclasses import dataclass

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

    def describe(self, name: str, tolerance: Tolerance, what: str | None = None) -> str:
        rule = what or (
            "differ exactly" if tolerance.kind == "exact" else f"differ beyond {tolerance.describe()}"
        )
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
    if expected.dtype.kind == "f":
        bad, abs_err, rel_err = _float_mismatches(actual, expected, tolerance)
    else:
        bad, abs_err, rel_err = actual != expected, float("nan"), float("nan")
    count = int(np.count_nonzero(bad))
    if count == 0:
        return None
    first = int(np.flatnonzero(bad)[0])
    return Mismatch(
        count, expected.size, first, expected[first].item(), actual[first].item(), abs_err, rel_err
    )


@np.errstate(invalid="ignore", over="ignore", divide="ignore")
def _float_mismatches(actual: np.ndarray, expected: np.ndarray, tolerance: Tolerance):
    a, e = actual.astype(np.float64), expected.astype(np.float64)
    nan_a, nan_e = np.isnan(a), np.isnan(e)
    inf_a, inf_e = np.isinf(a), np.isinf(e)
    bad = (nan_a != nan_e) | ((inf_a | inf_e) & ~(nan_a | nan_e) & (a != e))
    finite = ~(nan_a | nan_e | inf_a | inf_e)
    diff = np.zeros_like(a)
    np.subtract(a, e, out=diff, where=finite)
    diff = np.abs(diff)
    if tolerance.kind == "exact":
        bad |= finite & (diff != 0)
    else:
        bad |= finite & (diff > tolerance.atol + tolerance.rtol * np.abs(e))
    rel = np.where(finite & (e != 0), diff / np.abs(e), 0.0)
    return bad, (float(diff.max()) if diff.size else 0.0), (float(rel.max()) if rel.size else 0.0)


def max_errors(actual: np.ndarray, expected: np.ndarray) -> tuple[float, float]:
    if expected.dtype.kind != "f" or not expected.size or actual.shape != expected.shape:
        return 0.0, 0.0
    a, e = actual.astype(np.float64), expected.astype(np.float64)
    finite = np.isfinite(a) & np.isfinite(e)
    diff = np.abs(np.where(finite, a - e, 0.0))
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = np.where(finite & (e != 0), diff / np.abs(e), 0.0)
    return float(diff.max()), float(rel.max())


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
        pattern = np.frombuffer(bytes([byte]) * itemsize, dtype=arg.dtype.numpy)[0]
        same = values.view(f"u{itemsize}") == pattern.view(f"u{itemsize}")
        mask = same if mask is None else mask & same
    assert mask is not None
    return mask
