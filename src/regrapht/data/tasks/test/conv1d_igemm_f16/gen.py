"""fp16 activations and filter taps in [-1, 1], as raw 16-bit patterns."""

import numpy as np


def generate(sizes, rng):
    b, lout, cin, cout, k = sizes["batch"], sizes["Lout"], sizes["Cin"], sizes["Cout"], sizes["K"]
    x = rng.uniform(-1.0, 1.0, b * (lout + k - 1) * cin).astype(np.float16).view(np.uint16)
    w = rng.uniform(-1.0, 1.0, cout * k * cin).astype(np.float16).view(np.uint16)
    return {"x": x, "w": w}
