"""Well-conditioned tall matrices: orthonormal columns scaled by singular values in [1, 8],
mixed by a random rotation, plus a little noise (condition number below 10)."""

import numpy as np


def generate(sizes, rng):
    batch, m, n = sizes["batch"], sizes["m"], sizes["n"]
    out = np.empty((batch, m, n), dtype=np.float32)
    step = 4096
    for s in range(0, batch, step):
        e = min(batch, s + step)
        u, _ = np.linalg.qr(rng.standard_normal((e - s, m, n)))
        v, _ = np.linalg.qr(rng.standard_normal((e - s, n, n)))
        sv = rng.uniform(1.0, 8.0, (e - s, 1, n))
        out[s:e] = (u * sv) @ v.transpose(0, 2, 1)
    return {"A": out.reshape(-1)}
