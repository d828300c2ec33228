"""Stable biquads: each section's poles are a conjugate pair at radius 0.5..0.95 and angle 0.05..3
rad, its zeros a pair on or inside the unit circle, and the numerator scaled for unit gain at the
pole angle's neighbourhood (|b| stays moderate), so the cascade's outputs stay of order one."""

import numpy as np


def generate(sizes, rng):
    c = sizes["channels"]
    coef = np.empty((c, 2, 5), dtype=np.float64)
    r = rng.uniform(0.5, 0.95, (c, 2))
    theta = rng.uniform(0.05, 3.0, (c, 2))
    rz = rng.uniform(0.0, 1.0, (c, 2))
    phi = rng.uniform(0.0, np.pi, (c, 2))
    a1, a2 = -2.0 * r * np.cos(theta), r * r
    b0, b1, b2 = np.ones((c, 2)), -2.0 * rz * np.cos(phi), rz * rz
    # scale the numerator by the denominator's size at the pole angle over the numerator's there
    z = np.exp(1j * theta)
    gain = np.abs(1.0 + a1 / z + a2 / z**2) / np.maximum(np.abs(b0 + b1 / z + b2 / z**2), 1e-3)
    gain = np.minimum(gain, 4.0)
    coef[:, :, 0], coef[:, :, 1], coef[:, :, 2] = b0 * gain, b1 * gain, b2 * gain
    coef[:, :, 3], coef[:, :, 4] = a1, a2
    return {"coef": coef.astype(np.float32).reshape(-1)}
