"""Uneven expert groups (a few empty, sizes drawn around tokens / groups) and fp16 values in [-1, 1]
as raw 16-bit patterns."""

import numpy as np


def generate(sizes, rng):
    tokens, groups, k, n = sizes["tokens"], sizes["groups"], sizes["K"], sizes["N"]
    # a token's expert: skewed popularity, so groups differ in size and some may be empty
    popularity = rng.gamma(0.7, 1.0, groups) + 1e-3
    counts = np.bincount(rng.choice(groups, tokens, p=popularity / popularity.sum()), minlength=groups)
    group_start = np.concatenate([[0], np.cumsum(counts)]).astype(np.int32)
    return {
        "group_start": group_start,
        "X": rng.uniform(-1.0, 1.0, tokens * k).astype(np.float16).view(np.uint16),
        "W": rng.uniform(-1.0, 1.0, groups * k * n).astype(np.float16).view(np.uint16),
    }
