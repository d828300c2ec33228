import numpy as np


def generate(sizes: dict, rng: np.random.Generator) -> dict:
    """Fixes spread over the globe (away from the poles); `to` is a displaced copy of `from`,
    a few hundred km away and never due north/south, so distances and bearings are well
    conditioned."""
    n = sizes["n"]
    lat = np.degrees(np.arcsin(rng.uniform(-0.97, 0.97, n)))
    lon = rng.uniform(-180.0, 180.0, n)
    dlat = rng.normal(0.0, 3.0, n)
    # east-west offsets bounded away from zero: a due-south heading would sit on the +-180 cut
    dlon = rng.uniform(0.3, 6.0, n) * np.where(rng.random(n) < 0.5, 1.0, -1.0)
    to_lat = np.clip(lat + dlat, -80.0, 80.0)
    to_lon = lon + dlon
    frm = np.stack([lat, lon], axis=1).astype(np.float32)
    to = np.stack([to_lat, to_lon], axis=1).astype(np.float32)
    return {"from": frm, "to": to}
