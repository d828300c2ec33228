"""Pre-activation values like a projection's output: normal, std 2, as fp16 bit patterns."""

import numpy as np


def generate(sizes, rng):
    count = 2 * sizes["M"] * sizes["N"]
    # drawn in fp32 (not fp64): the bench size has almost a billion values
    return {"x": (rng.standard_normal(count, dtype=np.float32) * 2.0).astype(np.float16).view(np.uint16)}
