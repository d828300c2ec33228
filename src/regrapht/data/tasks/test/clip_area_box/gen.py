import numpy as np


def generate(sizes: dict, rng: np.random.Generator) -> dict:
    """Convex CCW polygons: 3-8 points at sorted random angles on a circle (radius 0.02-0.2) around
    a centre in [0, 1]^2, so some lie inside the box, some outside and many across its edges."""
    n = sizes["n"]
    counts = rng.integers(3, 9, n, dtype=np.int32)
    angles = np.sort(rng.random((n, 8), dtype=np.float32), axis=1) * np.float32(2 * np.pi)
    # Padding slots repeat the last real vertex's angle; they are never read as vertices.
    slot = np.arange(8)[None, :]
    last = np.take_along_axis(angles, (counts - 1)[:, None].astype(np.int64), axis=1)
    angles = np.where(slot < counts[:, None], angles, last)
    radius = rng.uniform(0.02, 0.2, (n, 1)).astype(np.float32)
    cx = rng.random((n, 1), dtype=np.float32)
    cy = rng.random((n, 1), dtype=np.float32)
    xs = (cx + radius * np.cos(angles)).astype(np.float32)
    ys = (cy + radius * np.sin(angles)).astype(np.float32)
    return {"nverts": counts, "xs": xs.reshape(-1), "ys": ys.reshape(-1)}
