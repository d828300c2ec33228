import numpy as np


def generate(sizes: dict, rng: np.random.Generator) -> dict:
    """Particles in the unit cube with Maxwellian velocities, lognormal masses and charges in {-1, 0, 1};
    about 15% fall inside [0.2, 0.8)^3 with mass >= 0.5."""
    n = sizes["n"]
    rec = np.empty((n, 8), dtype=np.float32)
    rec[:, 0:3] = rng.uniform(0.0, 1.0, (n, 3))
    rec[:, 3:6] = rng.normal(0.0, 1.0, (n, 3))
    rec[:, 6] = rng.lognormal(0.0, 0.6, n)
    rec[:, 7] = rng.choice(np.array([-1.0, 0.0, 1.0]), n)
    if n >= 4:  # a few particles exactly on the box faces and the mass cut
        idx = rng.integers(0, n, max(1, n // 100))
        rec[idx, rng.integers(0, 3, idx.size)] = np.float32(0.2)
        idx = rng.integers(0, n, max(1, n // 100))
        rec[idx, 6] = np.float32(0.5)
    return {"particles": rec.reshape(-1)}
