"""Two noisy signals whose coupling gain drifts slowly between -1 and 1."""

import numpy as np


def generate(sizes, rng):
    n = sizes["n"]
    t = np.arange(n, dtype=np.float64)
    period = max(n / 3.0, 8.0)
    gain = np.sin(2 * np.pi * t / period + rng.uniform(0, 2 * np.pi))
    x = rng.normal(0.0, 1.0, n) + 0.5 * np.sin(t * rng.uniform(0.01, 0.1))
    y = gain * x + rng.normal(0.0, 0.5, n) + rng.uniform(-2.0, 2.0)
    return {"x": x.astype(np.float32), "y": y.astype(np.float32)}
