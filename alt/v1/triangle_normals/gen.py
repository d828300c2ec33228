import numpy as np


def _grid_shape(nverts: int, ntris: int) -> tuple[int, int]:
    # nverts = gx*gy and ntris = 2*(gx-1)*(gy-1)  =>  gx + gy = nverts - ntris/2 + 1
    s = nverts - ntris // 2 + 1
    disc = s * s - 4 * nverts
    root = int(round(np.sqrt(max(disc, 0))))
    gx, gy = (s + root) // 2, (s - root) // 2
    assert gx * gy == nverts and 2 * (gx - 1) * (gy - 1) == ntris, (nverts, ntris)
    return gx, gy


def generate(sizes: dict, rng: np.random.Generator) -> dict:
    nverts, ntris = sizes["nverts"], sizes["ntris"]
    gx, gy = _grid_shape(nverts, ntris)
    jj, ii = np.meshgrid(np.arange(gx, dtype=np.float64), np.arange(gy, dtype=np.float64))
    x = jj + rng.uniform(-0.25, 0.25, jj.shape)
    y = ii + rng.uniform(-0.25, 0.25, ii.shape)
    phase = rng.uniform(0, 2 * np.pi, 2)
    z = 2.0 * np.sin(x * 0.05 + phase[0]) * np.cos(y * 0.07 + phase[1]) + rng.normal(0.0, 0.3, x.shape)
    verts = np.stack([x, y, z], axis=-1).reshape(-1).astype(np.float32)
    vid = np.arange(nverts, dtype=np.int32).reshape(gy, gx)
    a, b = vid[:-1, :-1].reshape(-1), vid[:-1, 1:].reshape(-1)
    c, d = vid[1:, :-1].reshape(-1), vid[1:, 1:].reshape(-1)
    tris = np.concatenate([np.stack([a, b, d], 1), np.stack([a, d, c], 1)])
    tris = tris[rng.permutation(tris.shape[0])]
    return {"verts": verts, "tris": tris.reshape(-1)}
