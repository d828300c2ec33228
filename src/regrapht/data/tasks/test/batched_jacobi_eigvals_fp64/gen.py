import numpy as np


def generate(sizes: dict, rng: np.random.Generator) -> dict:
    batch, n = sizes["batch"], sizes["n"]
    A = rng.uniform(-1.0, 1.0, (batch, n, n))
    # Strict upper triangle: unrelated data, large and not symmetric, so reading it shows.
    upper = np.triu(np.ones((n, n), dtype=bool), 1)
    A[:, upper] = rng.uniform(-50.0, 50.0, (batch, int(upper.sum())))
    return {"A": A.reshape(-1)}
