import numpy as np


def generate(sizes: dict, rng: np.random.Generator) -> dict:
    n = sizes["n"]
    A = np.empty((n, n), dtype=np.float64)
    step = 1024  # in slabs, to keep the peak memory near the output's
    for s in range(0, n, step):
        A[s : s + step] = rng.uniform(-1.0, 1.0, (min(step, n - s), n))
    # Off-diagonal rows of n entries of variance 1/3 have spectral radius ~ sqrt(n/3); a diagonal
    # of magnitude 2 sqrt(n) + 1 makes the Jacobi iteration contract by about 0.3 a step.
    sign = np.where(rng.random(n) < 0.5, -1.0, 1.0)
    idx = np.arange(n)
    A[idx, idx] = sign * (2.0 * np.sqrt(n) + 1.0 + rng.uniform(0.0, 1.0, n))
    return {"A": A.reshape(-1)}
