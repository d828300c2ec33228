"""Samples of a real k-component mixture (means spread evenly over [-8, 8],
standard deviations a fifth to a half of their spacing),
and a starting point near it but not at it: means off by up to half a standard deviation, unit
variances, equal weights. Every component keeps a substantial share of the samples, so EM stays
away from degenerate (collapsing or empty) components."""

import numpy as np


def generate(sizes, rng):
    n, k = sizes["n"], sizes["k"]
    if k > 1:  # evenly spread with jitter, widths a fraction of the spacing: no two components coincide
        spacing = 16.0 / (k - 1)
        centers = np.linspace(-8.0, 8.0, k) + rng.uniform(-0.1, 0.1, k) * spacing
        stds = rng.uniform(0.2, 0.5, k) * min(spacing, 3.0)
    else:
        centers = np.array([rng.uniform(-2.0, 2.0)])
        stds = rng.uniform(0.5, 1.5, 1)
    shares = rng.uniform(0.5, 1.5, k)
    shares /= shares.sum()
    comp = rng.choice(k, size=n, p=shares)
    x = rng.normal(centers[comp], stds[comp]).astype(np.float32)
    return {
        "x": x,
        "init_w": np.full(k, 1.0 / k, dtype=np.float32),
        "init_mu": (centers + rng.uniform(-0.5, 0.5, k) * stds).astype(np.float32),
        "init_var": np.ones(k, dtype=np.float32),
    }
