"""bf16 activations and (gate | up) weights in [-1, 1], passed as their raw 16-bit patterns (fp32's upper half)."""

import numpy as np


def _to_bf16_bits(values):
    # round to nearest even on the dropped low half of the fp32 pattern
    bits = values.astype(np.float32).view(np.uint32)
    bits = bits + np.uint32(0x7FFF) + ((bits >> np.uint32(16)) & np.uint32(1))
    return (bits >> np.uint32(16)).astype(np.uint16)


def generate(sizes, rng):
    m, n, k = sizes["M"], sizes["N"], sizes["K"]
    return {"X": _to_bf16_bits(rng.uniform(-1.0, 1.0, m * k)), "W": _to_bf16_bits(rng.uniform(-1.0, 1.0, 2 * k * n))}
