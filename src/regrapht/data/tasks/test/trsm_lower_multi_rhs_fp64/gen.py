import numpy as np


def generate(sizes: dict, rng: np.random.Generator) -> dict:
    n = sizes["n"]
    L = rng.uniform(-1.0, 1.0, (n, n))
    # Strict upper triangle: unrelated data, large, so reading it shows.
    upper = np.triu(np.ones((n, n), dtype=bool), 1)
    L[upper] = rng.uniform(-50.0, 50.0, int(upper.sum()))
    # A diagonal of magnitude 2 sqrt(n) + 1 bounds the growth of forward substitution.
    sign = np.where(rng.random(n) < 0.5, -1.0, 1.0)
    idx = np.arange(n)
    L[idx, idx] = sign * (2.0 * np.sqrt(n) + 1.0 + rng.uniform(0.0, 1.0, n))
    return {"L": L.reshape(-1)}
