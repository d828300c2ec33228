import torch
import torch.nn as nn
import torch.nn.functional as F

batch_size = 1024
in_features = 2048
out_features = 2048


class Model(nn.Module):
    """y = gelu(x @ W^T + b): a linear layer followed by the exact (erf) GELU."""

    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.gelu(self.linear(x))


def get_inputs():
    return [torch.randn(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features]
