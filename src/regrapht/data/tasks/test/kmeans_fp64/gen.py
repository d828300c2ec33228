import numpy as np


def generate(sizes: dict, rng: np.random.Generator) -> dict:
    n, k, dims = sizes["n"], sizes["k"], sizes["dims"]
    # Blobs around 2k random centres, so clusters merge and split as the iterations run.
    centres = rng.uniform(0.0, 20.0, (2 * k, dims))
    owner = rng.integers(0, 2 * k, n)
    points = centres[owner] + rng.normal(0.0, 1.5, (n, dims))
    # Initial centroids: k distinct data points (the usual random initialisation).
    init = points[rng.choice(n, size=k, replace=False)] if k <= n else rng.uniform(0.0, 20.0, (k, dims))
    return {"points": points.reshape(-1), "init": init.reshape(-1)}
