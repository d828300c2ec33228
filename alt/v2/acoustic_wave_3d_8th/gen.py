"""Two nearby wavefields (smooth waves plus noise) and a layered velocity model, in float32."""

import numpy as np


def _axes(nz, ny, nx):
    z = np.linspace(0.0, 1.0, nz, dtype=np.float32)[:, None, None]
    y = np.linspace(0.0, 1.0, ny, dtype=np.float32)[None, :, None]
    x = np.linspace(0.0, 1.0, nx, dtype=np.float32)[None, None, :]
    return z, y, x


def generate(sizes, rng):
    nz, ny, nx = sizes["nz"], sizes["ny"], sizes["nx"]
    shape = (nz, ny, nx)
    z, y, x = _axes(nz, ny, nx)
    u = np.zeros(shape, dtype=np.float32)
    for _ in range(3):
        fz, fy, fx = rng.uniform(2.0, 8.0, 3).astype(np.float32)
        pz, py, px = rng.uniform(0.0, 2 * np.pi, 3).astype(np.float32)
        u += (
            np.sin(2 * np.pi * fz * z + pz)
            * np.sin(2 * np.pi * fy * y + py)
            * np.sin(2 * np.pi * fx * x + px)
        )
    u_prev = u * np.float32(0.98) + rng.standard_normal(shape, dtype=np.float32) * np.float32(0.02)
    u += rng.standard_normal(shape, dtype=np.float32) * np.float32(0.02)
    # Layered medium: velocity grows with depth z, with a tilted interface; (v dt/h)^2 stays below the CFL limit.
    layer = (
        np.float32(0.03)
        + np.float32(0.05) * z
        + np.float32(0.04) * ((z + np.float32(0.3) * x) > np.float32(0.6))
    )
    vel2 = np.broadcast_to(layer, shape).astype(np.float32) + rng.uniform(0.0, 0.005, shape).astype(
        np.float32
    )
    return {"u": u.reshape(-1), "u_prev": u_prev.reshape(-1), "vel2": vel2.reshape(-1)}
