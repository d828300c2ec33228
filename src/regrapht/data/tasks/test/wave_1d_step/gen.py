"""A string displacement made of a few standing waves plus noise, and the previous time level (float32)."""

import numpy as np


def generate(sizes, rng):
    n = sizes["n"]
    t = np.arange(n, dtype=np.float32) / np.float32(max(n - 1, 1))
    u = np.zeros(n, dtype=np.float32)
    for _ in range(3):
        k = np.float32(rng.uniform(1.0, 40.0))
        a = np.float32(rng.uniform(0.2, 1.0))
        u += a * np.sin(np.float32(np.pi) * k * t + np.float32(rng.uniform(0, 2 * np.pi)))
    u_prev = u * np.float32(rng.uniform(0.95, 1.0)) + rng.standard_normal(n, dtype=np.float32) * np.float32(
        0.01
    )
    u += rng.standard_normal(n, dtype=np.float32) * np.float32(0.01)
    return {"u": u, "u_prev": u_prev}
