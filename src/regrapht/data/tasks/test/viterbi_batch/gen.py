import numpy as np


def generate(sizes: dict, rng: np.random.Generator) -> dict:
    n = sizes["sequences"] * sizes["length"]
    return {"obs": rng.integers(0, sizes["symbols"], n).astype(np.uint8)}
