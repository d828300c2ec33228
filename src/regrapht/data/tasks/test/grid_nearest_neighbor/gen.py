import numpy as np


def generate(sizes: dict, rng: np.random.Generator) -> dict:
    """Uniform points of the unit square sorted by grid cell (float32 cell arithmetic, as in the
    task's definition), with the cells' start offsets."""
    n, grid = sizes["n"], sizes["grid"]
    pts = rng.random((n, 2), dtype=np.float32)
    g = np.float32(grid)
    cx = np.minimum((pts[:, 0] * g).astype(np.int64), grid - 1)
    cy = np.minimum((pts[:, 1] * g).astype(np.int64), grid - 1)
    cell = cy * grid + cx
    order = np.argsort(cell, kind="stable")
    start = np.zeros(grid * grid + 1, dtype=np.int32)
    np.cumsum(np.bincount(cell, minlength=grid * grid), out=start[1:])
    return {"xy": pts[order].reshape(-1), "cell_start": start}
