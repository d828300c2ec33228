import numpy as np


def generate(sizes: dict, rng: np.random.Generator) -> dict:
    nimg, h, w = sizes["nimg"], sizes["h"], sizes["w"]
    out = np.empty((nimg, h, w), dtype=np.uint8)
    yy = np.linspace(0.0, 1.0, h, dtype=np.float32)[:, None]
    xx = np.linspace(0.0, 1.0, w, dtype=np.float32)[None, :]
    for i in range(nimg):
        # Low-contrast images (a narrow band of levels, as equalization is for) with smooth shading and
        # noise; every 8th image is constant, which maps to itself.
        if i % 8 == 7:
            out[i] = rng.integers(0, 256)
            continue
        base, span = rng.uniform(20.0, 160.0), rng.uniform(10.0, 90.0)
        fx, fy, phase = rng.uniform(1.0, 6.0), rng.uniform(1.0, 6.0), rng.uniform(0.0, 6.3)
        shade = 0.5 + 0.5 * np.sin(fx * 3.1 * xx + phase) * np.cos(fy * 3.1 * yy)
        noise = rng.normal(0.0, 3.0, (h, w)).astype(np.float32)
        out[i] = np.clip(np.rint(base + span * shade + noise), 0, 255).astype(np.uint8)
    return {"images": out.reshape(-1)}
