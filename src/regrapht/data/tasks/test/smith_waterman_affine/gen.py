import numpy as np

_ACGT = np.frombuffer(b"acgt", dtype=np.uint8)


def _mutate(src: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A related copy: 12% substitutions, 2% single-letter insertions and 2% deletions."""
    keep = rng.random(src.size) >= 0.02
    out = src[keep].copy()
    sub = rng.random(out.size) < 0.12
    out[sub] = rng.choice(_ACGT, int(sub.sum()))
    ins = np.flatnonzero(rng.random(out.size) < 0.02)
    return np.insert(out, ins, rng.choice(_ACGT, ins.size))


def generate(sizes: dict, rng: np.random.Generator) -> dict:
    """Pairs of DNA sequences where b embeds a mutated copy of a random stretch of a (local homology)."""
    pairs, m, n = sizes["pairs"], sizes["m"], sizes["n"]
    a = rng.choice(_ACGT, (pairs, m))
    b = rng.choice(_ACGT, (pairs, n))
    for p in range(pairs):
        if m < 4 or n < 4:
            continue
        length = int(rng.integers(min(m, n) // 4, min(m, n) // 2 + 1))
        start = int(rng.integers(0, m - length + 1))
        copy = _mutate(a[p, start : start + length], rng)[:n]
        at = int(rng.integers(0, n - copy.size + 1))
        b[p, at : at + copy.size] = copy
    return {"a": a.reshape(-1), "b": b.reshape(-1)}
