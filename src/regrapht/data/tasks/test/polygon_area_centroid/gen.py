import numpy as np


def generate(sizes: dict, rng: np.random.Generator) -> dict:
    npoly, nverts = sizes["npoly"], sizes["nverts"]
    # 3 vertices each, the rest spread with power-law weights: a few polygons get thousands.
    extra = nverts - 3 * npoly
    counts = np.full(npoly, 3, dtype=np.int64)
    if extra > 0:
        weights = rng.pareto(1.2, npoly) + 0.05
        counts += rng.multinomial(extra, weights / weights.sum())
    ptr = np.zeros(npoly + 1, dtype=np.int64)
    np.cumsum(counts, out=ptr[1:])
    # Star-shaped, counter-clockwise polygons: sorted angles around a centre, jagged radii.
    owner = np.repeat(np.arange(npoly), counts)
    angle = rng.uniform(0.0, 2.0 * np.pi, nverts)
    order = np.lexsort((angle, owner))
    angle = angle[order]
    centre = rng.uniform(-100.0, 100.0, (npoly, 2))
    scale = rng.uniform(10.0, 60.0, npoly)
    radius = scale[owner] * rng.uniform(0.5, 1.0, nverts)
    vx = centre[owner, 0] + radius * np.cos(angle)
    vy = centre[owner, 1] + radius * np.sin(angle)
    return {
        "poly_ptr": ptr.astype(np.int32),
        "vx": vx.astype(np.float32),
        "vy": vy.astype(np.float32),
    }
