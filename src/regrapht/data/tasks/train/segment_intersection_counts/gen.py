"""Short segments with integer endpoints: random directions and lengths, with a share snapped to a
coarse lattice so that shared endpoints, T-junctions and collinear overlaps occur."""

import numpy as np

R = 1 << 20


def generate(sizes, rng):
    n = sizes["n"]
    # segment length ~ box / sqrt(n) * 3, so each crosses a handful of others
    length = max(4, int(2 * R / max(1.0, np.sqrt(n)) * 3))
    x0 = rng.integers(-R, R + 1, n)
    y0 = rng.integers(-R, R + 1, n)
    x1 = np.clip(x0 + rng.integers(-length, length + 1, n), -R, R)
    y1 = np.clip(y0 + rng.integers(-length, length + 1, n), -R, R)
    snap = rng.random(n) < 0.3
    grid = max(1, length // 2)
    for a in (x0, y0, x1, y1):
        a[snap] = np.clip((a[snap] // grid) * grid, -R, R)
    return {k: v.astype(np.int32) for k, v in (("x0", x0), ("y0", y0), ("x1", x1), ("y1", y1))}
