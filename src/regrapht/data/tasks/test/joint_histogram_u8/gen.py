import numpy as np


def generate(sizes: dict, rng: np.random.Generator) -> dict:
    """img_a: a smooth intensity ramp with texture; img_b: a contrast-changed, noisy copy of it."""
    n = sizes["n"]
    a = np.arange(n, dtype=np.float32)
    a *= np.float32(2 * np.pi / 5003.0)
    a += np.float32(rng.uniform(0, 6.3))
    np.sin(a, out=a)
    a *= np.float32(90.0)
    a += np.float32(128.0)
    a += rng.standard_normal(n, dtype=np.float32) * np.float32(25.0)
    np.clip(np.rint(a, out=a), 0, 255, out=a)
    b = a * np.float32(0.8) + np.float32(30.0)
    b += rng.standard_normal(n, dtype=np.float32) * np.float32(12.0)
    np.clip(np.rint(b, out=b), 0, 255, out=b)
    return {"img_a": a.astype(np.uint8), "img_b": b.astype(np.uint8)}
