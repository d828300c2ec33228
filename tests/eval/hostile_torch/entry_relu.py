# Honest bare form: no ModelNew, a declared entry point (forward's inputs, then Model's parameters).
# regrapht: entry = relu
import torch


def relu(x):
    out = torch.empty_like(x)
    out.copy_(x)
    out[out < 0] = 0.0
    return out
