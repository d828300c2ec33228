import numpy as np


def generate(sizes: dict, rng: np.random.Generator) -> dict:
    """Event times on [0, 1000) (rounded to a 1e-3 grid so ties occur); windows average ~64 events,
    and a few windows start exactly on an event time."""
    events, queries = sizes["events"], sizes["queries"]
    horizon = 1000.0
    times = np.sort(np.round(rng.uniform(0.0, horizon, events), 3)).astype(np.float32)
    start = rng.uniform(-10.0, horizon + 10.0, queries).astype(np.float32)
    some = rng.random(queries) < 0.05
    if events and some.any():
        start[some] = times[rng.integers(0, events, int(some.sum()))]
    length = rng.exponential(64.0 * horizon / max(events, 1), queries)
    end = (start.astype(np.float64) + length).astype(np.float32)
    return {"times": times, "win_start": start, "win_end": end}
