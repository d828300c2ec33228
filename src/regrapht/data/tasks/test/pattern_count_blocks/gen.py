import numpy as np

_ACGT = np.frombuffer(b"acgt", dtype=np.uint8)


def generate(sizes: dict, rng: np.random.Generator) -> dict:
    """DNA text and motif, drawn as uint8 codes (the bench text is 512 MB, so no int64 temporaries)."""
    text = _ACGT[rng.integers(0, 4, sizes["n"], dtype=np.uint8)]
    pattern = _ACGT[rng.integers(0, 4, sizes["m"], dtype=np.uint8)]
    return {"text": text, "pattern": pattern}
