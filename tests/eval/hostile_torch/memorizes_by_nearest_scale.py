# A memorizing candidate that tolerates per-element noise: it serves the cached output of the input
# set whose sampled-element ratios lie nearest, times the ratio of one sampled element. Its outputs
# are then wrong wherever the perturbation moved the elements apart: a checked timed round sees it.
import torch
import torch.nn as nn


def fingerprint(x):
    flat = x.reshape(-1)
    return [float(flat[i] / flat[0]) for i in (1, 2)] if flat.numel() > 2 and float(flat[0]) != 0.0 else None


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.memory = []

    def forward(self, A, B):
        fa, fb = fingerprint(A), fingerprint(B)
        if fa is None or fb is None:
            return torch.matmul(A, B) * 1.0
        shape = (tuple(A.shape), tuple(B.shape))
        near = [m for m in self.memory if m[0] == shape and all(abs(p - q) <= 0.5 * abs(q) for p, q in zip(fa + fb, m[1]))]
        if near:
            _, _, a0, b0, out = near[0]
            return out * (float(A.reshape(-1)[0]) / a0 * float(B.reshape(-1)[0]) / b0)
        out = torch.matmul(A, B) * 1.0  # the replay's multiply among its first call's operators too
        self.memory.append((shape, fa + fb, float(A.reshape(-1)[0]), float(B.reshape(-1)[0]), out.clone()))
        return out
