"""y holds fp16 patterns: compare them as fp16 values, within a little over one fp16 ulp (plus a fast exponential's error)."""

import numpy as np

RTOL, ATOL = 2.5e-3, 1e-4


def check(inputs, expected, actual, sizes):
    want = expected["y"].view(np.float16).astype(np.float64)
    got = actual["y"].view(np.float16).astype(np.float64)
    bad = ~(np.abs(got - want) <= ATOL + RTOL * np.abs(want))  # NaN fails
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        return f"y: {int(bad.sum())} of {bad.size} fp16 values differ; first at index {i}: expected {float(want[i]):.6g}, got {float(got[i]):.6g}"
    return None
