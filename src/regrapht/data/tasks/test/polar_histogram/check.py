import math

import numpy as np

SECTORS, RINGS = 256, 16
# A float computation of the sector coordinate (up to 256) is off the exact value by at most about
# 6e-5: atan2f's 2 ulp and the rounding of pi, of the scale, of the sum (each x 256 / 2 pi) and of
# the product (half an ulp at 256); the ring coordinate by far less. Vectors within this margin of
# a cell edge may land on either side; about 0.08% of uniform vectors are that close.
MARGIN = 2e-4


def _candidates(t: np.ndarray, top: int) -> tuple[np.ndarray, np.ndarray]:
    """Lowest and highest bin a float computation of bin coordinate t can give (clamped)."""
    lo = np.clip(np.floor(t - MARGIN), 0, top).astype(np.int64)
    hi = np.clip(np.floor(t + MARGIN), 0, top).astype(np.int64)
    return lo, hi


def check(inputs, expected, actual, sizes):
    x = inputs["xs"].astype(np.float64)
    y = inputs["ys"].astype(np.float64)
    r_max = float(np.float32(inputs.get("r_max", 1.0)))
    got = actual["counts"].astype(np.int64)
    a_lo, a_hi = _candidates((np.arctan2(y, x) + math.pi) * SECTORS / (2 * math.pi), SECTORS - 1)
    ring = np.sqrt(x * x + y * y) * RINGS / r_max
    r_lo = np.floor(ring - MARGIN).astype(np.int64)
    r_hi = np.floor(ring + MARGIN).astype(np.int64)
    sure_in = r_hi < RINGS
    maybe_in = r_lo < RINGS
    exact = sure_in & (a_lo == a_hi) & (r_lo == r_hi)
    cells = SECTORS * RINGS
    base = np.bincount(r_lo[exact] * SECTORS + a_lo[exact], minlength=cells)
    # An ambiguous vector may raise any of the (at most four) cells its corners name, or none when
    # it may fall outside the last ring.
    room = np.zeros(cells, dtype=np.int64)
    loose = maybe_in & ~exact
    for rr in (r_lo[loose], r_hi[loose]):
        for aa in (a_lo[loose], a_hi[loose]):
            ok = rr < RINGS
            room += np.bincount(rr[ok] * SECTORS + aa[ok], minlength=cells)
    low_bad = got < base
    high_bad = got > base + room
    if low_bad.any() or high_bad.any():
        cell = int(np.flatnonzero(low_bad | high_bad)[0])
        return (
            f"cell {cell} (ring {cell // SECTORS}, sector {cell % SECTORS}) holds {int(got[cell])}, "
            f"expected {int(base[cell])} (up to {int(room[cell])} more for vectors on a cell edge)"
        )
    total, least, most = int(got.sum()), int(sure_in.sum()), int(maybe_in.sum())
    if not least <= total <= most:
        return f"{total} vectors counted, expected {least}" + (f" to {most}" if most != least else "")
    return None
