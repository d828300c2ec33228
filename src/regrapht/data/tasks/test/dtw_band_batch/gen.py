"""Pairs of random-walk series (float32): each pair shares a walk, and the second series is a
time-warped, noisy copy of it, so the warping path stays near the diagonal as DTW's band assumes."""

import numpy as np


def generate(sizes, rng):
    batch, n = sizes["batch"], sizes["n"]
    steps = rng.standard_normal((batch, n), dtype=np.float32) * np.float32(0.3)
    walk = np.cumsum(steps, axis=1, dtype=np.float32)
    # a smooth monotone warp of the time axis, at most ~n/64 samples off the diagonal
    t = np.arange(n, dtype=np.float64)
    phase = rng.uniform(0, 2 * np.pi, (batch, 1))
    amplitude = rng.uniform(0, max(n / 64.0, 0.5), (batch, 1))
    warped = np.clip(t + amplitude * np.sin(2 * np.pi * t / max(n, 1) + phase), 0, n - 1)
    lo = np.floor(warped).astype(np.int64)
    hi = np.minimum(lo + 1, n - 1)
    frac = (warped - lo).astype(np.float32)
    rows = np.arange(batch)[:, None]
    b = walk[rows, lo] * (1 - frac) + walk[rows, hi] * frac
    b += rng.standard_normal((batch, n), dtype=np.float32) * np.float32(0.05)
    return {"a": walk.reshape(-1), "b": b.astype(np.float32).reshape(-1)}
