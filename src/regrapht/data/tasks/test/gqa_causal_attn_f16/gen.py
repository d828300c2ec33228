"""Queries and keys normal (scores ~ N(0, 1) after the 1/sqrt(D) scale), values in [-1, 1], as fp16 bit patterns."""

import numpy as np


def generate(sizes, rng):
    b, hq, hkv, L, d = sizes["batch"], sizes["Hq"], sizes["Hkv"], sizes["L"], sizes["D"]
    return {
        "Q": rng.normal(0.0, 1.0, b * hq * L * d).astype(np.float16).view(np.uint16),
        "K": rng.normal(0.0, 1.0, b * hkv * L * d).astype(np.float16).view(np.uint16),
        "V": rng.uniform(-1.0, 1.0, b * hkv * L * d).astype(np.float16).view(np.uint16),
    }
