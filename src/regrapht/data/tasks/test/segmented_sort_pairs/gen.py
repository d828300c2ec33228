import numpy as np

_MAX_SEGMENT = 256


def generate(sizes: dict, rng: np.random.Generator) -> dict:
    """Segment offsets: random lengths in [0, 256] (empty segments included) that sum to n."""
    n, segments = sizes["n"], sizes["segments"]
    average = n // segments
    lengths = np.minimum(rng.integers(0, 2 * average + 2, segments, dtype=np.int64), _MAX_SEGMENT)
    diff = n - int(lengths.sum())
    while diff != 0:
        # Move the sum towards n one unit per segment at a time, within [0, 256].
        room = np.flatnonzero(lengths < _MAX_SEGMENT) if diff > 0 else np.flatnonzero(lengths > 0)
        pick = rng.choice(room, min(abs(diff), room.size), replace=False)
        lengths[pick] += 1 if diff > 0 else -1
        diff = n - int(lengths.sum())
    offsets = np.zeros(segments + 1, dtype=np.int32)
    np.cumsum(lengths, out=offsets[1:])
    return {"offsets": offsets}
