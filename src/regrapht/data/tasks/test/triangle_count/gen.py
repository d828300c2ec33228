import numpy as np


def generate(sizes: dict, rng: np.random.Generator) -> dict:
    """A clustered random undirected graph, each edge stored in both directions with rows sorted.

    60% of the edges join ids less than 32 apart (so triangles are common), 3% attach to hub
    vertices (one per 1000 ids) and the rest are uniform.
    """
    n, edges = sizes["vertices"], sizes["edges"]
    half = edges // 2
    if n < 2 or half == 0:
        return {"row_ptr": np.zeros(n + 1, dtype=np.int32), "col_idx": np.zeros(edges, dtype=np.int32)}
    if half > n * (n - 1) // 2:
        raise ValueError("too many edges for a simple graph")
    codes = np.zeros(0, dtype=np.int64)
    while codes.size < half:
        extra = max(16, int(1.3 * (half - codes.size)))
        kind = rng.random(extra)
        hubs = max(1, n // 1000)
        a = rng.integers(0, n, extra, dtype=np.int64)
        a = np.where(kind < 0.03, rng.integers(0, hubs, extra) * (n // hubs), a)
        local = (kind >= 0.03) & (kind < 0.63)
        b = np.where(local, (a + rng.integers(1, 32, extra)) % n, rng.integers(0, n, extra, dtype=np.int64))
        keep = a != b
        lo, hi = np.minimum(a[keep], b[keep]), np.maximum(a[keep], b[keep])
        codes = np.unique(np.concatenate([codes, lo * n + hi]))
    codes = rng.permutation(codes)[:half]
    lo, hi = codes // n, codes % n
    both = np.sort(np.concatenate([lo * n + hi, hi * n + lo]))  # sorted by (source, target)
    src, dst = both // n, both % n
    row_ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(src, minlength=n), out=row_ptr[1:])
    return {"row_ptr": row_ptr.astype(np.int32), "col_idx": dst.astype(np.int32)}
