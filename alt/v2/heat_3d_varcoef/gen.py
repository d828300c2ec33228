"""A smooth temperature field with noise, and a positive conductivity field with smooth layers."""

import numpy as np


def _smooth(shape, rng, waves):
    nz, ny, nx = shape
    z = np.linspace(0.0, 1.0, nz, dtype=np.float32)[:, None, None]
    y = np.linspace(0.0, 1.0, ny, dtype=np.float32)[None, :, None]
    x = np.linspace(0.0, 1.0, nx, dtype=np.float32)[None, None, :]
    f = np.zeros(shape, dtype=np.float32)
    for _ in range(waves):
        fz, fy, fx = rng.uniform(1.0, 4.0, 3).astype(np.float32)
        pz, py, px = rng.uniform(0.0, 2 * np.pi, 3).astype(np.float32)
        f += (
            np.sin(2 * np.pi * fz * z + pz)
            * np.sin(2 * np.pi * fy * y + py)
            * np.sin(2 * np.pi * fx * x + px)
        )
    return f


def generate(sizes, rng):
    shape = (sizes["nz"], sizes["ny"], sizes["nx"])
    u = _smooth(shape, rng, 3) + rng.standard_normal(shape, dtype=np.float32) * np.float32(0.05)
    kappa = np.float32(1.0) + np.float32(0.4) * _smooth(shape, rng, 2) / np.float32(2.0)
    kappa += rng.uniform(0.0, 0.1, shape).astype(np.float32)
    return {"u": u.reshape(-1), "kappa": kappa.reshape(-1)}
