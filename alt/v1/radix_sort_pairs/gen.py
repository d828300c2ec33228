import numpy as np


def generate(sizes: dict, rng: np.random.Generator) -> dict:
    """Keys drawn from a pool of n/4 random 32-bit values: every byte varies and keys repeat."""
    n = sizes["n"]
    pool = rng.integers(0, 2**32, max(1, n // 4), dtype=np.uint64)
    keys = pool[rng.integers(0, pool.size, n)].astype(np.uint32)
    return {"keys": keys}
