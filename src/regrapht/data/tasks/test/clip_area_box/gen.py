import numpy as np

# Smallest angle between consecutive vertices (radians). Without it, two sorted uniform angles of the
# 8.4M polygons at the bench size come within ~1e-7 rad: the float32 vertices then coincide or swap,
# the polygon is no longer convex (a sub-ulp edge pointing backwards), and any method that relies on
# convexity, such as clipping the box to the polygon's edge half-planes, is thrown off by the
# rounding of the input rather than by its own arithmetic (1-3 polygons per bench set). With 0.1 rad
# and radius >= 0.02, every edge is >= 2e-3 long and every turn is far above float32 rounding.
MIN_GAP = 0.1


def generate(sizes: dict, rng: np.random.Generator) -> dict:
    """Convex CCW polygons: 3-8 points at sorted random angles, at least MIN_GAP apart (also across
    the wrap), on a circle (radius 0.02-0.2) around a centre in [0, 1]^2, so some lie inside the
    box, some outside and many across its edges."""
    n = sizes["n"]
    counts = rng.integers(3, 9, n, dtype=np.int32)
    # Sorted uniform draws on [0, 2 pi - 8 gap) plus k gaps for slot k: consecutive angles differ by
    # at least one gap, and the last used slot ends at least one gap before the first plus 2 pi.
    slot = np.arange(8)
    span = 2 * np.pi - 8 * MIN_GAP
    angles = (np.sort(rng.random((n, 8)), axis=1) * span + slot[None, :] * MIN_GAP).astype(np.float32)
    # Padding slots repeat the last real vertex's angle; they are never read as vertices.
    last = np.take_along_axis(angles, (counts - 1)[:, None].astype(np.int64), axis=1)
    angles = np.where(slot[None, :] < counts[:, None], angles, last)
    radius = rng.uniform(0.02, 0.2, (n, 1)).astype(np.float32)
    cx = rng.random((n, 1), dtype=np.float32)
    cy = rng.random((n, 1), dtype=np.float32)
    xs = (cx + radius * np.cos(angles)).astype(np.float32)
    ys = (cy + radius * np.sin(angles)).astype(np.float32)
    return {"nverts": counts, "xs": xs.reshape(-1), "ys": ys.reshape(-1)}
