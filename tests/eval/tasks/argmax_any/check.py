"""Any index of a maximum value is right."""

import numpy as np


def check(inputs, expected, actual, sizes):
    x = np.asarray(inputs["x"])
    i = int(actual["index"][0])
    if not 0 <= i < x.size:
        return f"index {i} is outside 0..{x.size - 1}"
    if x[i] != x.max():
        return f"x[{i}] = {x[i]} is not the maximum {x.max()}"
    return None
