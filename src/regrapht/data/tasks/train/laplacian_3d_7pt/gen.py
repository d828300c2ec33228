"""A smooth 3D field (sum of separable waves) plus small noise, built in float32 by broadcasting."""

import numpy as np


def generate(sizes, rng):
    nz, ny, nx = sizes["nz"], sizes["ny"], sizes["nx"]
    z = np.linspace(0.0, 1.0, nz, dtype=np.float32)[:, None, None]
    y = np.linspace(0.0, 1.0, ny, dtype=np.float32)[None, :, None]
    x = np.linspace(0.0, 1.0, nx, dtype=np.float32)[None, None, :]
    u = np.zeros((nz, ny, nx), dtype=np.float32)
    for _ in range(3):
        fz, fy, fx = rng.uniform(1.0, 5.0, 3).astype(np.float32)
        pz, py, px = rng.uniform(0.0, 2 * np.pi, 3).astype(np.float32)
        u += (
            np.sin(2 * np.pi * fz * z + pz)
            * np.sin(2 * np.pi * fy * y + py)
            * np.sin(2 * np.pi * fx * x + px)
        )
    u += rng.standard_normal((nz, ny, nx), dtype=np.float32) * np.float32(0.05)
    return {"u": u.reshape(-1)}
