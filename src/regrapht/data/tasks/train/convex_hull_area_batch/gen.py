"""Point sets with distinct integer points: a quarter spread over the whole coordinate range, some
whole sets on one line, the rest on small lattices (collinear triples, points on hull edges)."""

import numpy as np

R = 1 << 20


def _first_m_of_permutations(rng, count, pool, m):
    # per row, m distinct values of range(pool)
    return np.argsort(rng.random((count, pool)), axis=1)[:, :m]


def _has_duplicates(x, y):
    key = np.sort(x * (4 * R + 3) + y, axis=1)
    return (key[:, 1:] == key[:, :-1]).any(axis=1)


def generate(sizes, rng):
    sets, m = sizes["sets"], sizes["m"]
    px = np.empty((sets, m), dtype=np.int64)
    py = np.empty((sets, m), dtype=np.int64)
    kind = rng.integers(0, 8, sets)  # 0, 1: wide; 2: one line; else lattice

    wide = np.flatnonzero(kind <= 1)
    px[wide] = rng.integers(-R, R + 1, (len(wide), m))
    py[wide] = rng.integers(-R, R + 1, (len(wide), m))
    while len(wide):
        wide = wide[_has_duplicates(px[wide], py[wide])]
        px[wide] = rng.integers(-R, R + 1, (len(wide), m))
        py[wide] = rng.integers(-R, R + 1, (len(wide), m))

    line = np.flatnonzero(kind == 2)
    t = _first_m_of_permutations(rng, len(line), 2 * m + 5, m)
    step = rng.integers(1, 1000, (len(line), 2))
    px[line] = -R // 2 + t * step[:, :1]
    py[line] = -R // 2 + t * step[:, 1:]

    lattice = np.flatnonzero(kind >= 3)
    base = max(2, int(np.ceil(np.sqrt(m))))
    for extra in range(4):
        rows = lattice[rng.integers(0, 4, len(lattice)) == extra] if extra < 3 else lattice
        lattice = np.setdiff1d(lattice, rows)
        span = base + extra
        cells = _first_m_of_permutations(rng, len(rows), span * span, m)
        scale = rng.integers(1, 4096, (len(rows), 1))
        px[rows] = (cells % span) * scale + rng.integers(-R // 2, R // 2, (len(rows), 1))
        py[rows] = (cells // span) * scale + rng.integers(-R // 2, R // 2, (len(rows), 1))
    return {"px": px.reshape(-1).astype(np.int32), "py": py.reshape(-1).astype(np.int32)}
