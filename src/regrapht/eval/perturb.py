"""Fresh inputs for every timed call: a secret perturbation of each element of the perturbable inputs.

A candidate that recognizes an input set it has seen (a few sampled elements are enough) could serve
a cached output instead of computing. So before every timed call the harness perturbs every element
of each perturbable input (`Arg.perturbable`) with a per-call key: timed calls never repeat an input
a candidate has seen. The perturbation is a counter-based hash of (key, element index), so the parent
reproduces a checked call's inputs on the host from its key alone, and computes that call's expected
outputs with the serial reference; unchecked calls get keys whose outputs are never computed.

- float elements: x * (1 + eps), eps an odd multiple of 2^-34 in (-2^-10, 2^-10), never 0. The
  product is rounded once in float64 and once to the element's type, then clamped to [lo, hi], the
  finite range of the base array; NaN and Inf are left as they are. Sign, zero and the generator's
  interval are kept, and
  so, nearly, is the cost of value-dependent control flow.
- integer elements (only where a task declares `perturb = "values"`): x - 1, x or x + 1, each
  step taken only where it stays within [lo, hi].

`data/kernels/device_check.cu` (`regrapht_perturb`) computes the same values on the device, bit for
bit: the hash is integer arithmetic and the float product is rounded as here, with no fused
operations.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
MIX1 = np.uint64(0xBF58476D1CE4E5B9)
MIX2 = np.uint64(0x94D049BB133111EB)
BOUND = 2.0**-10  # |eps| < BOUND
CHUNK = 1 << 16  # elements per slice: the hash's temporaries stay in cache


@dataclass(frozen=True)
class Bounds:
    """The finite range of one base array, which its perturbed values never leave."""

    lo: float | int
    hi: float | int

    def to_list(self) -> list[float | int]:
        return [self.lo, self.hi]


def bounds_of(values: np.ndarray) -> Bounds | None:
    """[lo, hi] of an array's finite values; None when it has none, or integers whose range does not
    fit int64 (the device kernel takes signed bounds): such an array is left as it is."""
    if values.size == 0:
        return None
    if values.dtype.kind == "f":
        lo, hi = values.min(), values.max()
        if np.isfinite(lo) and np.isfinite(hi):  # NaN and Inf would show here: none in the array
            return Bounds(float(lo), float(hi))
        finite = values[np.isfinite(values)]
        if finite.size == 0:
            return None
        return Bounds(float(finite.min()), float(finite.max()))
    lo, hi = int(values.min()), int(values.max())
    if hi > np.iinfo(np.int64).max:
        return None
    return Bounds(lo, hi)


def hash64(key: int, start: int, count: int) -> np.ndarray:
    """splitmix64 of (key + (i + 1) * golden) for element indices i in [start, start + count)."""
    z = np.arange(start + 1, start + count + 1, dtype=np.uint64)
    z *= GOLDEN
    z += np.uint64(key & 0xFFFFFFFFFFFFFFFF)
    z ^= z >> np.uint64(30)
    z *= MIX1
    z ^= z >> np.uint64(27)
    z *= MIX2
    z ^= z >> np.uint64(31)
    return z


def perturb_into(out: np.ndarray, base: np.ndarray, key: int, bounds: Bounds | None) -> None:
    """Write `base` perturbed with `key` into `out` (same dtype and length; flat views are taken)."""
    src, dst = base.reshape(-1), out.reshape(-1)
    if bounds is None:
        dst[:] = src
        return
    floating = src.dtype.kind == "f"
    lo, hi = (src.dtype.type(bounds.lo), src.dtype.type(bounds.hi))
    for start in range(0, src.size, CHUNK):
        n = min(CHUNK, src.size - start)
        z = hash64(key, start, n)
        x = src[start : start + n]
        if floating:
            m = (z >> np.uint64(40)).astype(np.int64)  # 24 bits
            factor = 1.0 + (2 * m + 1 - (1 << 24)).astype(np.float64) * 2.0**-34  # exact in float64
            y = (x.astype(np.float64) * factor).astype(src.dtype)
            y = np.where(y > hi, hi, y)
            y = np.where(y < lo, lo, y)
            y = np.where(np.isfinite(x), y, x)  # NaN and Inf stay as they are
        else:
            step = (z >> np.uint64(62)) & np.uint64(1)  # half the elements move
            down = (z >> np.uint64(63)).astype(bool)
            y = x.copy()
            up_ok = (step == 1) & ~down & (x < hi)
            down_ok = (step == 1) & down & (x > lo)
            y[up_ok] += 1
            y[down_ok] -= 1
        dst[start : start + n] = y


def perturbed(base: np.ndarray, key: int, bounds: Bounds | None) -> np.ndarray:
    out = np.empty_like(base)
    perturb_into(out, base, key, bounds)
    return out
