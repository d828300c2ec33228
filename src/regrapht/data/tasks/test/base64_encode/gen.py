import numpy as np


def generate(sizes: dict, rng: np.random.Generator) -> dict:
    """Uniform random bytes, drawn directly as uint8 (the bench buffer is 400 MB)."""
    return {"in": rng.integers(0, 256, sizes["n"], dtype=np.uint8)}
