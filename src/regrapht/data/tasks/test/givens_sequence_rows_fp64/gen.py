import numpy as np


def generate(sizes: dict, rng: np.random.Generator) -> dict:
    # Rotations: c = cos(theta), s = sin(theta) for angles anywhere on the circle.
    k = max(sizes["n"] - 1, 1)
    theta = rng.uniform(-np.pi, np.pi, k)
    return {"c": np.cos(theta), "s": np.sin(theta)}
