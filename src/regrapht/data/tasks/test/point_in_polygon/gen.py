import numpy as np


def generate(sizes: dict, rng: np.random.Generator) -> dict:
    npts, nverts = sizes["npts"], sizes["nverts"]
    # A star-shaped polygon (sorted angles, random radii) on the integer grid: a simple polygon
    # with many concave corners. |coordinates| <= 900 for vertices and < 960 for points keeps every
    # product of differences under 2**22, so the crossing test is exact in float32 (FMA or not).
    angles = np.sort(rng.uniform(0.0, 2.0 * np.pi, nverts))
    radii = rng.uniform(300.0, 900.0, nverts)
    vx = np.rint(radii * np.cos(angles))
    vy = np.rint(radii * np.sin(angles))
    px = rng.integers(-960, 960, npts) + 0.5
    py = rng.integers(-960, 960, npts) + 0.5
    return {
        "px": px.astype(np.float32),
        "py": py.astype(np.float32),
        "vx": vx.astype(np.float32),
        "vy": vy.astype(np.float32),
    }
