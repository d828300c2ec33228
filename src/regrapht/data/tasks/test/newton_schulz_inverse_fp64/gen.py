import numpy as np


def generate(sizes: dict, rng: np.random.Generator) -> dict:
    n = sizes["n"]
    A = rng.uniform(-1.0, 1.0, (n, n))
    # a diagonal of magnitude 2 sqrt(n) + 1 against off-diagonal rows of spectral radius ~ sqrt(n/3):
    # well conditioned, and the iteration converges in about ten steps at n = 512
    sign = np.where(rng.random(n) < 0.5, -1.0, 1.0)
    idx = np.arange(n)
    A[idx, idx] = sign * (2.0 * np.sqrt(n) + 1.0 + rng.uniform(0.0, 1.0, n))
    return {"A": A.reshape(-1)}
