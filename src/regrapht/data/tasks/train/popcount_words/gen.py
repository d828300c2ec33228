import numpy as np


def _words(rng: np.random.Generator, n: int) -> np.ndarray:
    return rng.integers(0, 2**63 - 1, n, dtype=np.int64, endpoint=True).view(np.uint64)


def generate(sizes: dict, rng: np.random.Generator) -> dict:
    """Random words; one in eight keeps only the bits of a sparse mask (some become zero)."""
    n = sizes["n"]
    words = _words(rng, n)
    sparse = np.flatnonzero(rng.random(n) < 0.125)
    mask = (
        _words(rng, sparse.size)
        & _words(rng, sparse.size)
        & _words(rng, sparse.size)
        & _words(rng, sparse.size)
    )
    words[sparse] &= mask
    return {"words": words}
