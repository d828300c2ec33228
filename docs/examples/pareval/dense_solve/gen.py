"""A strictly diagonally dominant A (off-diagonal entries from [-1, 1], each diagonal entry twice its
row's off-diagonal sum plus one, with a random sign) and b = A @ x for x from [-10, 10]."""

import numpy as np


def generate(sizes, rng):
    n = sizes["N"]
    a = rng.uniform(-1.0, 1.0, size=(n, n))
    np.fill_diagonal(a, 0.0)
    diagonal = 2.0 * np.abs(a).sum(axis=1) + 1.0
    np.fill_diagonal(a, diagonal * rng.choice([-1.0, 1.0], size=n))
    x = rng.uniform(-10.0, 10.0, size=n)
    return {"A": a.reshape(-1), "b": a @ x}
