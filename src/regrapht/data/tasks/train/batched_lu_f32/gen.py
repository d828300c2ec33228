"""Strictly diagonally dominant matrices: off-diagonal entries in [-1, 1], |diagonal| in n + [1, 2)
with a random sign, so elimination without pivoting is stable."""

import numpy as np


def generate(sizes, rng):
    batch, n = sizes["batch"], sizes["n"]
    a = rng.uniform(-1.0, 1.0, (batch, n, n)).astype(np.float32)
    idx = np.arange(n)
    sign = np.where(rng.random((batch, n)) < 0.5, -1.0, 1.0)
    a[:, idx, idx] = (sign * (n + rng.uniform(1.0, 2.0, (batch, n)))).astype(np.float32)
    return {"A": a.reshape(-1)}
