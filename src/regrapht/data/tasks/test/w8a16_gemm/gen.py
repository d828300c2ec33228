"""fp16 activations in [-1, 1] as raw 16-bit patterns."""

import numpy as np


def generate(sizes, rng):
    return {"X": rng.uniform(-1.0, 1.0, sizes["M"] * sizes["K"]).astype(np.float16).view(np.uint16)}
