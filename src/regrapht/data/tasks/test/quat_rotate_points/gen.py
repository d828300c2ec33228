import numpy as np


def generate(sizes: dict, rng: np.random.Generator) -> dict:
    n = sizes["n"]
    # uniformly distributed rotations: normalized 4D Gaussians
    q = rng.standard_normal((n, 4)).astype(np.float64)
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    return {"quat": q.astype(np.float32).reshape(-1)}
