import numpy as np


def generate(sizes: dict, rng: np.random.Generator) -> dict:
    """A sparse random undirected graph (each undirected edge stored in both directions, rows sorted).

    With about one stored edge per vertex it has one large component and many small ones; a
    fraction of the vertices get a few extra edges to a nearby id range so degrees vary.
    """
    n, edges = sizes["vertices"], sizes["edges"]
    half = edges // 2
    if n < 2 or half == 0:
        return {"row_ptr": np.zeros(n + 1, dtype=np.int32), "col_idx": np.zeros(edges, dtype=np.int32)}
    codes = np.zeros(0, dtype=np.int64)
    while codes.size < half:
        extra = max(16, int(1.2 * (half - codes.size)))
        a = rng.integers(0, n, extra, dtype=np.int64)
        kind = rng.random(extra)
        hubs = max(1, n // 1000)
        a = np.where(kind < 0.05, rng.integers(0, hubs, extra) * (n // hubs), a)  # a few hubs
        local = (kind >= 0.05) & (kind < 0.35)  # some edges stay within a window of ids
        b = np.where(local, (a + rng.integers(1, 64, extra)) % n, rng.integers(0, n, extra, dtype=np.int64))
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
