import numpy as np


def generate(sizes: dict, rng: np.random.Generator) -> dict:
    batch, n = sizes["batch"], sizes["n"]
    dl = rng.uniform(-1.0, 1.0, (batch, n)).astype(np.float32)
    du = rng.uniform(-1.0, 1.0, (batch, n)).astype(np.float32)
    dl[:, 0] = 0.0  # no row above the first, none below the last
    du[:, -1] = 0.0
    # |d| in [3, 4] with either sign: strictly dominant over |dl| + |du| <= 2
    sign = np.where(rng.random((batch, n)) < 0.5, -1.0, 1.0)
    d = (sign * rng.uniform(3.0, 4.0, (batch, n))).astype(np.float32)
    return {"dl": dl.reshape(-1), "d": d.reshape(-1), "du": du.reshape(-1)}
