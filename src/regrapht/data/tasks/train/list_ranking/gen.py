import numpy as np


def generate(sizes: dict, rng: np.random.Generator) -> dict:
    """Random node order cut into lists of 1..512 nodes."""
    n = sizes["n"]
    order = rng.permutation(n)
    lengths = rng.integers(1, 513, n // 128 + 2)  # more than enough cuts to cover n
    ends = np.cumsum(lengths) - 1
    ends = ends[ends < n - 1]
    nxt = np.empty(n, dtype=np.int64)
    if n:
        nxt[order[:-1]] = order[1:]
        nxt[order[-1]] = -1
        nxt[order[ends]] = -1
    return {"next": nxt.astype(np.int32)}
