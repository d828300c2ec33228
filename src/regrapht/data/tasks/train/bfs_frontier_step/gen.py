import numpy as np


def generate(sizes: dict, rng: np.random.Generator) -> dict:
    """Levels 0..3 on about a third of the vertices (a quarter of those on the frontier), -1 elsewhere."""
    n = sizes["vertices"]
    visited = rng.random(n) < 0.35
    level = np.where(visited, rng.integers(0, 4, n), -1).astype(np.int32)
    if n:
        level[0] = 3  # at least one frontier vertex
    return {"level": level}
