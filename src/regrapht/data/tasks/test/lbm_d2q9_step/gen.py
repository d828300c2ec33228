"""A perturbed near-equilibrium D2Q9 state: smooth density and a few vortices, plus disc obstacles."""

import numpy as np

CX = np.array([0, 1, 0, -1, 0, 1, -1, -1, 1], dtype=np.float32)
CY = np.array([0, 0, 1, 0, -1, 1, 1, -1, -1], dtype=np.float32)
W = np.array([4 / 9] + [1 / 9] * 4 + [1 / 36] * 4, dtype=np.float32)


def generate(sizes, rng):
    ny, nx = sizes["ny"], sizes["nx"]
    y = np.linspace(0.0, 1.0, ny, endpoint=False, dtype=np.float32)[:, None]
    x = np.linspace(0.0, 1.0, nx, endpoint=False, dtype=np.float32)[None, :]
    two_pi = np.float32(2 * np.pi)
    kx, ky = rng.integers(1, 4, 2).astype(np.float32)
    rho = np.float32(1.0) + np.float32(0.05) * np.sin(two_pi * kx * x) * np.cos(two_pi * ky * y)
    ux = np.float32(0.06) * np.sin(two_pi * ky * y + np.float32(rng.uniform(0, 6))) * np.ones_like(x)
    uy = np.float32(0.06) * np.sin(two_pi * kx * x + np.float32(rng.uniform(0, 6))) * np.ones_like(y)
    usq = ux * ux + uy * uy
    f = np.empty((ny, nx, 9), dtype=np.float32)
    for q in range(9):
        eu = CX[q] * ux + CY[q] * uy
        feq = (
            W[q]
            * rho
            * (np.float32(1.0) + np.float32(3.0) * eu + np.float32(4.5) * eu * eu - np.float32(1.5) * usq)
        )
        f[:, :, q] = feq * (np.float32(1.0) + rng.uniform(-0.02, 0.02, (ny, nx)).astype(np.float32))
    solid = np.zeros((ny, nx), dtype=bool)
    for _ in range(5):
        cy, cx = rng.uniform(0.0, 1.0, 2).astype(np.float32)
        r = np.float32(rng.uniform(0.03, 0.12))
        solid |= (y - cy) ** 2 + (x - cx) ** 2 < r * r
    solid |= rng.random((ny, nx)) < 0.02
    return {"f": f.reshape(-1), "solid": solid.astype(np.uint8).reshape(-1)}
