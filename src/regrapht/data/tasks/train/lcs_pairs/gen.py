import numpy as np


def generate(sizes: dict, rng: np.random.Generator) -> dict:
    """A strings fill the first half of text, B strings the second; lengths 0..64, random gaps allowed."""
    pairs, chars = sizes["pairs"], sizes["chars"]
    half = chars // 2
    out = {}
    for name, base in (("a_off", 0), ("b_off", half)):
        lengths = rng.integers(0, 65, pairs)
        lengths = np.minimum(lengths, half // max(pairs, 1))
        off = np.zeros(pairs + 1, dtype=np.int64)
        np.cumsum(lengths, out=off[1:])
        out[name] = (off + base).astype(np.int32)
    return out
