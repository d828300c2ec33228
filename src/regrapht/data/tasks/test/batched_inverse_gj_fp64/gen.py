import numpy as np


def generate(sizes: dict, rng: np.random.Generator) -> dict:
    batch, n = sizes["batch"], sizes["n"]
    A = np.empty((batch, n, n), dtype=np.float64)
    idx = np.arange(n)
    step = 4096  # in slabs, to keep the peak memory near the output's
    for s in range(0, batch, step):
        e = min(batch, s + step)
        # Diagonally dominant (well conditioned), then rows shuffled: the dominant entry of a column
        # sits in a random row, so only a pivoted elimination is stable.
        M = rng.uniform(-1.0, 1.0, (e - s, n, n))
        sign = np.where(rng.random((e - s, n)) < 0.5, -1.0, 1.0)
        M[:, idx, idx] = sign * (2.0 * np.sqrt(n) + 1.0 + rng.uniform(0.0, 1.0, (e - s, n)))
        order = np.argsort(rng.random((e - s, n)), axis=1)
        A[s:e] = np.take_along_axis(M, order[:, :, None], axis=1)
    return {"A": A.reshape(-1)}
