import numpy as np


def generate(sizes: dict, rng: np.random.Generator) -> dict:
    n = sizes["nboxes"]
    centers = rng.uniform(0.0, 1.0, (n, 3))
    half = rng.uniform(0.02, 0.15, (n, 3))
    boxes = np.concatenate([centers - half, centers + half], axis=1)
    # A single tiny case still needs a box that holds something: make the first box large.
    if n:
        boxes[0] = [-0.1, -0.1, -0.1, 1.1, 1.1, 1.1] if n == 1 else boxes[0]
    return {"boxes": boxes.astype(np.float32).reshape(-1)}
