"""Pre-activation values like a projection's output: normal, std 2, as fp16 bit patterns."""

import numpy as np


def generate(sizes, rng):
    count = 2 * sizes["M"] * sizes["N"]
    return {"x": rng.normal(0.0, 2.0, count).astype(np.float16).view(np.uint16)}
