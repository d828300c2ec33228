# The memorizing candidate of issue 20, adapted to a bilinear operator: it recognizes an input set up
# to scale (the ratios of a few sampled elements), and returns its cached output times the scales
# instead of computing. Against inputs scaled by one factor per timed call it serves every repeated
# set from memory; against per-element perturbation it never recognizes a set, and does the work.
import torch.nn as nn

PROBES = (0, 1, 2)


def fingerprint(x):
    flat = x.reshape(-1)
    if flat.numel() <= max(PROBES) or float(flat[0]) == 0.0:
        return None
    return tuple(f"{float(flat[i] / flat[0]):.4g}" for i in PROBES[1:])  # scaling in fp32 rounds the last bits


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.memory = {}

    def forward(self, A, B):
        key = (tuple(A.shape), tuple(B.shape), fingerprint(A), fingerprint(B))
        hit = self.memory.get(key) if None not in key else None
        if hit is not None:
            a0, b0, out = hit
            return out * (float(A.reshape(-1)[0]) / a0 * float(B.reshape(-1)[0]) / b0)
        # its own (slow) product, whose operators include the replay's multiply
        out = (A.unsqueeze(2) * B.unsqueeze(0)).sum(1)
        if None not in key:
            self.memory[key] = (float(A.reshape(-1)[0]), float(B.reshape(-1)[0]), out.clone())
        return out
