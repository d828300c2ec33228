"""Sparse symmetric adjacency matrices: about one edge per vertex, so the number of components
varies from seed to seed (ParEval's dense graphs always have exactly one)."""

import numpy as np


def generate(sizes, rng):
    n = sizes["N"]
    a = np.zeros((n, n), dtype=np.int32)
    if n > 1:
        edges = rng.integers(0, n, size=(n // 2 + 1, 2))
        for i, j in edges:
            if i != j:
                a[i, j] = a[j, i] = 1
    return {"A": a.reshape(-1)}
