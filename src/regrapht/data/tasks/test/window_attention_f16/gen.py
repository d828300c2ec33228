"""fp16 queries and keys in [-1.5, 1.5] (peaked enough softmax rows) and values in [-1, 1], as raw
16-bit patterns."""

import numpy as np


def generate(sizes, rng):
    count = sizes["windows"] * sizes["L"] * sizes["d"]
    return {
        "Q": rng.uniform(-1.5, 1.5, count).astype(np.float16).view(np.uint16),
        "K": rng.uniform(-1.5, 1.5, count).astype(np.float16).view(np.uint16),
        "V": rng.uniform(-1.0, 1.0, count).astype(np.float16).view(np.uint16),
    }
