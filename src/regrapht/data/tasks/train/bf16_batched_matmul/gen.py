"""bf16 matrices with entries in [-1, 1], passed as their raw 16-bit patterns (fp32's upper half)."""

import numpy as np


def _bf16_bits(x):
    # round to nearest even on the 16 dropped bits
    u = x.astype(np.float32).view(np.uint32)
    u = u + np.uint32(0x7FFF) + ((u >> np.uint32(16)) & np.uint32(1))
    return (u >> np.uint32(16)).astype(np.uint16)


def generate(sizes, rng):
    b, m, n, k = sizes["batch"], sizes["m"], sizes["n"], sizes["k"]
    return {
        "A": _bf16_bits(rng.uniform(-1.0, 1.0, b * m * k)),
        "B": _bf16_bits(rng.uniform(-1.0, 1.0, b * k * n)),
    }
