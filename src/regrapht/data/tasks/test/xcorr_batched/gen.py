"""Signal pairs for time-delay estimation: y is x delayed by a per-pair lag, scaled, plus noise."""

import numpy as np


def generate(sizes, rng):
    pairs, n, lags = sizes["pairs"], sizes["n"], sizes["lags"]
    x = rng.normal(0.0, 1.0, (pairs, n)).astype(np.float32)
    y = np.empty_like(x)
    delays = rng.integers(0, max(lags, 1), pairs)
    gains = rng.uniform(0.5, 1.5, pairs)
    for p in range(pairs):
        d = int(min(delays[p], n))
        shifted = np.concatenate([rng.normal(0.0, 1.0, d), x[p, : n - d]])
        y[p] = (gains[p] * shifted + rng.normal(0.0, 0.7, n)).astype(np.float32)
    return {"x": x.reshape(-1), "y": y.reshape(-1)}
