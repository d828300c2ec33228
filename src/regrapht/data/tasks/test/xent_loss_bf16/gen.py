"""bf16 logits like a trained head's (normal, std 3, with a few rows shifted up by 90 so that an
implementation that skips the row maximum overflows), as raw 16-bit patterns; labels are classes,
about one row in ten ignored (-1)."""

import numpy as np


def _to_bf16_bits(values):
    bits = values.astype(np.float32).view(np.uint32)
    bits = bits + np.uint32(0x7FFF) + ((bits >> np.uint32(16)) & np.uint32(1))
    return (bits >> np.uint32(16)).astype(np.uint16)


def generate(sizes, rng):
    rows, vocab = sizes["rows"], sizes["vocab"]
    logits = rng.normal(0.0, 3.0, (rows, vocab))
    logits[rng.random(rows) < 0.05] += 90.0
    labels = rng.integers(0, vocab, rows).astype(np.int32)
    labels[rng.random(rows) < 0.1] = -1
    return {"logits": _to_bf16_bits(logits.reshape(-1)), "labels": labels}
