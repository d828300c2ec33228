import numpy as np


def generate(sizes: dict, rng: np.random.Generator) -> dict:
    rows, cols, width = sizes["rows"], sizes["cols"], sizes["width"]
    # Rows use between half and all of their slots; padding slots come last.
    used = rng.integers(max(width // 2, 1) if width else 0, width + 1, rows)
    slot = np.arange(width)[:, None]
    live = slot < used[None, :]
    ell_cols = rng.integers(0, max(cols, 1), (width, rows), dtype=np.int32)
    ell_vals = rng.standard_normal((width, rows), dtype=np.float32)
    ell_cols[~live] = -1
    ell_vals[~live] = 0.0
    return {"ell_cols": ell_cols.reshape(-1), "ell_vals": ell_vals.reshape(-1)}
