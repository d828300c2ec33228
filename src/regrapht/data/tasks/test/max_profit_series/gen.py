import numpy as np


def generate(sizes: dict, rng: np.random.Generator) -> dict:
    """Integer random walks (time-major), starting near 10000 cents, with a slight downward drift."""
    series, days = sizes["series"], sizes["days"]
    moves = rng.integers(-50, 50, (days, series), dtype=np.int32)  # high is exclusive: drift -0.5
    start = rng.integers(8000, 12000, series, dtype=np.int32)
    # Running sums day by day, in place: one contiguous add per day instead of a strided cumsum
    # (the bench array is gigabytes).
    for day in range(1, days):
        np.add(moves[day], moves[day - 1], out=moves[day])
    prices = moves
    prices += start
    return {"prices": prices}
