import numpy as np


def check(inputs, expected, actual, sizes):
    """Accept any path whose log score matches the best score (ties and float order may pick another)."""
    n, length, states, symbols = sizes["sequences"], sizes["length"], sizes["states"], sizes["symbols"]
    path = actual["path"].astype(np.int64).reshape(n, length)
    if n == 0 or length == 0:
        return None
    if path.min() < 0 or path.max() >= states:
        return f"path holds a state outside 0..{states - 1}"
    obs = inputs["obs"].astype(np.int64).reshape(n, length)
    init = inputs["init_logp"].astype(np.float64)
    trans = inputs["trans_logp"].astype(np.float64).reshape(states, states)
    emit = inputs["emit_logp"].astype(np.float64).reshape(states, symbols)
    score = init[path[:, 0]] + emit[path[:, 0], obs[:, 0]]
    for t in range(1, length):
        score += trans[path[:, t - 1], path[:, t]] + emit[path[:, t], obs[:, t]]
    best = expected["best_logp"].astype(np.float64)
    err = np.abs(score - best)
    bad = np.flatnonzero(err > 1e-3 + 1e-5 * np.abs(best))
    if bad.size:
        s = int(bad[0])
        return (
            f"{bad.size} paths score below the best (sequence {s}: path scores {score[s]:.6f}, "
            f"best is {best[s]:.6f})"
        )
    return None
