"""fp16 matrices with entries in [-1, 1], passed as their raw 16-bit patterns."""

import numpy as np


def generate(sizes, rng):
    M, N, K = sizes["M"], sizes["N"], sizes["K"]
    a = rng.uniform(-1.0, 1.0, M * K).astype(np.float16).view(np.uint16)
    b = rng.uniform(-1.0, 1.0, K * N).astype(np.float16).view(np.uint16)
    return {"A": a, "B": b}
