import numpy as np


def generate(sizes: dict, rng: np.random.Generator) -> dict:
    """Segment boundaries at uniformly random cut points: exponential-like lengths, some empty."""
    segments, n = sizes["segments"], sizes["n"]
    cuts = np.sort(rng.integers(0, n + 1, segments - 1))
    offsets = np.concatenate(([0], cuts, [n])).astype(np.int32)
    return {"offsets": offsets}
