import numpy as np


def generate(sizes: dict, rng: np.random.Generator) -> dict:
    """Runs of geometric length (mean 4) over 16 values, so neighbouring runs sometimes merge."""
    n = sizes["n"]
    runs = n // 2 + 2
    lengths = rng.geometric(0.25, runs)
    while lengths.sum() < n:
        lengths = np.concatenate([lengths, rng.geometric(0.25, runs)])
    symbols = rng.integers(0, 16, lengths.size, dtype=np.int32)
    return {"values": np.repeat(symbols, lengths)[:n].astype(np.int32)}
