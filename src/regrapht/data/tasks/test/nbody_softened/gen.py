"""Clustered bodies in the unit cube with masses that sum to about one."""

import numpy as np


def generate(sizes, rng):
    n = sizes["n"]
    clusters = 6
    centers = rng.uniform(0.2, 0.8, (clusters, 3))
    pos = centers[rng.integers(0, clusters, n)] + rng.normal(0.0, 0.08, (n, 3))
    mass = rng.uniform(0.5, 1.5, n) / max(n, 1)
    bodies = np.concatenate([pos, mass[:, None]], axis=1)
    return {"bodies": bodies.astype(np.float32).reshape(-1)}
