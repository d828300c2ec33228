import numpy as np


def generate(sizes: dict, rng: np.random.Generator) -> dict:
    batch, n = sizes["batch"], sizes["n"]
    A = np.empty((batch, n, n), dtype=np.float64)
    lower = np.tril(np.ones((n, n), dtype=bool), -1)
    idx = np.arange(n)
    step = 4096  # in slabs, to keep the peak memory near the output's
    for s in range(0, batch, step):
        e = min(batch, s + step)
        # Strict upper triangle: unrelated data, large and not symmetric, so reading it shows.
        slab = rng.uniform(-50.0, 50.0, (e - s, n, n))
        slab[:, lower] = rng.uniform(-1.0, 1.0, (e - s, n, n))[:, lower]
        # Diagonal above n: strictly diagonally dominant, hence SPD and well conditioned.
        slab[:, idx, idx] = n + rng.uniform(1.0, 2.0, (e - s, n))
        A[s:e] = slab
    return {"A": A.reshape(-1)}
