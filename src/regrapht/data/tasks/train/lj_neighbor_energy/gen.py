"""Atoms on a jittered simple cubic lattice (spacing 1, filled x first) and, per atom, the padded
neighbour list an MD code would build: every atom at a lattice offset in {-1, 0, 1}^3, in offset
order, unused slots -1. Positions are float32; the list radius (sqrt(3) plus jitter) exceeds the
cutoff, so the kernel must still test each pair's distance."""

import numpy as np

JITTER = 0.1


def generate(sizes, rng):
    n = sizes["n"]
    max_neigh = sizes["max_neigh"]
    side = 1
    while side**3 < n:
        side += 1
    idx = np.arange(n, dtype=np.int64)
    gx, gy, gz = idx % side, (idx // side) % side, idx // (side * side)
    x = (gx + rng.uniform(-JITTER, JITTER, n)).astype(np.float32)
    y = (gy + rng.uniform(-JITTER, JITTER, n)).astype(np.float32)
    z = (gz + rng.uniform(-JITTER, JITTER, n)).astype(np.float32)
    neigh = np.full((n, max_neigh), -1, dtype=np.int32)
    count = np.zeros(n, dtype=np.int32)
    for dz in (-1, 0, 1):
        for dy in (-1, 0, 1):
            for dx in (-1, 0, 1):
                if dx == dy == dz == 0:
                    continue
                nx_, ny_, nz_ = gx + dx, gy + dy, gz + dz
                j = nx_ + side * (ny_ + side * nz_)
                ok = (nx_ >= 0) & (nx_ < side) & (ny_ >= 0) & (ny_ < side) & (nz_ >= 0) & (j < n)
                ok &= count < max_neigh
                rows = np.nonzero(ok)[0]
                neigh[rows, count[rows]] = j[rows]
                count[rows] += 1
    return {"x": x, "y": y, "z": z, "neigh_count": count, "neigh": neigh.reshape(-1)}
