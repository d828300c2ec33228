import numpy as np


def generate(sizes: dict, rng: np.random.Generator) -> dict:
    batch, n = sizes["batch"], sizes["n"]
    L = np.empty((batch, n, n), dtype=np.float32)
    lower = np.tril(np.ones((n, n), dtype=bool), -1)
    idx = np.arange(n)
    step = 2048  # build in slabs to keep the peak memory near the output size
    for s in range(0, batch, step):
        e = min(batch, s + step)
        # Strict upper triangle: unrelated data (large, so reading it by mistake shows).
        slab = rng.random((e - s, n, n), dtype=np.float32) * 100.0 - 50.0
        off = (rng.random((e - s, n, n), dtype=np.float32) * 2.0 - 1.0) * (2.0 / max(n, 1))
        slab[:, lower] = off[:, lower]
        sign = np.where(rng.random((e - s, n)) < 0.5, -1.0, 1.0)
        slab[:, idx, idx] = (rng.uniform(1.0, 2.0, (e - s, n)) * sign).astype(np.float32)
        L[s:e] = slab
    return {"L": L.reshape(-1)}
