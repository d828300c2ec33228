"""Query and key heads with N(0, 1) entries in fp16, passed as their raw 16-bit patterns."""

import numpy as np


def generate(sizes, rng):
    count = sizes["heads"] * sizes["L"] * sizes["d"]
    q = rng.standard_normal(count).astype(np.float16).view(np.uint16)
    k = rng.standard_normal(count).astype(np.float16).view(np.uint16)
    return {"Q": q, "Kt": k}
