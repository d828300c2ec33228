import numpy as np


def generate(sizes: dict, rng: np.random.Generator) -> dict:
    """Integer random walks (time-major), starting near 10000 cents, with a slight downward drift."""
    series, days = sizes["series"], sizes["days"]
    moves = rng.integers(-50, 50, (days, series), dtype=np.int32)  # high is exclusive: drift -0.5
    start = rng.integers(8000, 12000, series, dtype=np.int32)
    prices = np.cumsum(moves, axis=0, dtype=np.int32, out=moves)  # in place: the bench array is 1 GB
    prices += start
    return {"prices": prices}
