"""A piecewise-smooth 8-bit picture (gradients and discs) with 10% salt-and-pepper noise."""

import numpy as np


def generate(sizes, rng):
    h, w = sizes["height"], sizes["width"]
    y = np.linspace(0.0, 1.0, h, dtype=np.float32)[:, None]
    x = np.linspace(0.0, 1.0, w, dtype=np.float32)[None, :]
    a, b, c = rng.uniform(20.0, 80.0, 3).astype(np.float32)
    img = np.float32(60.0) + a * x + b * y + c * np.sin(np.float32(6.0) * x * y)
    for _ in range(6):
        cy, cx = rng.uniform(0.0, 1.0, 2).astype(np.float32)
        radius = np.float32(rng.uniform(0.05, 0.3))
        inside = (y - cy) ** 2 + (x - cx) ** 2 < radius * radius
        img = np.where(inside, np.float32(rng.uniform(0.0, 255.0)), img)
    img = img + rng.normal(0.0, 4.0, (h, w)).astype(np.float32)
    img = np.clip(img, 0, 255).astype(np.uint8)
    noise = rng.random((h, w))
    img[noise < 0.05] = 0
    img[noise > 0.95] = 255
    return {"img": img.reshape(-1)}
