import numpy as np


def generate(sizes: dict, rng: np.random.Generator) -> dict:
    n = sizes["instances"] * sizes["items"]
    top = max(1, sizes["capacity"] // 3)
    return {"weight": rng.integers(1, top + 1, n).astype(np.int32)}
