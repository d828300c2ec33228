"""fp16 activations in [-2, 2] as raw 16-bit patterns, and a real rotary cache: row p holds
cos(p * theta_i) then sin(p * theta_i) with theta_i = 10000^(-2i/dim)."""

import numpy as np


def generate(sizes, rng):
    tokens, heads, dim, max_pos = sizes["tokens"], sizes["heads"], sizes["dim"], sizes["max_pos"]
    # drawn in fp32 (not fp64): the bench size has half a billion values
    x = (rng.random(tokens * heads * dim, dtype=np.float32) * 4.0 - 2.0).astype(np.float16).view(np.uint16)
    half = dim // 2
    theta = 10000.0 ** (-2.0 * np.arange(half) / dim)
    angle = np.arange(max_pos)[:, None] * theta[None, :]
    cache = np.concatenate([np.cos(angle), np.sin(angle)], axis=1).astype(np.float32)
    return {"x": x, "cos_sin": cache.reshape(-1)}
