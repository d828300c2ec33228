"""Particles uniform in [0, G)^3 with denser clumps, sorted by unit cell, with the cell list."""

import numpy as np


def generate(sizes, rng):
    G, n = sizes["G"], sizes["n"]
    clumped = n // 4
    pos = rng.uniform(0.0, G, (n, 3))
    if clumped and G > 1:
        centres = rng.uniform(0.5, G - 0.5, (max(1, n // 500), 3))
        pick = rng.integers(0, len(centres), clumped)
        pos[:clumped] = centres[pick] + rng.normal(0.0, 0.4, (clumped, 3))
    pos = np.clip(pos, 0.0, np.nextafter(np.float32(G), np.float32(0))).astype(np.float32)
    cell3 = np.minimum(np.floor(pos).astype(np.int64), G - 1)
    cell = (cell3[:, 2] * G + cell3[:, 1]) * G + cell3[:, 0]
    order = np.argsort(cell, kind="stable")
    pos, cell = pos[order], cell[order]
    start = np.searchsorted(cell, np.arange(G * G * G + 1)).astype(np.int32)
    return {"px": pos[:, 0].copy(), "py": pos[:, 1].copy(), "pz": pos[:, 2].copy(), "cell_start": start}
