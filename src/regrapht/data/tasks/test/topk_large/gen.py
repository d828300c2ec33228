import numpy as np


def generate(sizes: dict, rng: np.random.Generator) -> dict:
    """Integral scores centred on 0 over a range of n/8 values: every score appears ~8 times, so
    the k-th place usually falls inside a group of ties."""
    n = sizes["n"]
    half = n // 16 + 1
    return {"scores": rng.integers(-half, half, n).astype(np.float32)}
