import torch
import torch.nn as nn

batch_size = 16
dim = 16384


class Model(nn.Module):
    """Row softmax of a (batch_size, dim) tensor, followed by a learned per-feature scale."""

    def __init__(self, features: int):
        super().__init__()
        self.scale = nn.Parameter(torch.rand(features) + 0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.softmax(x, dim=1) * self.scale


def get_inputs():
    return [torch.randn(batch_size, dim) * 4]


def get_init_inputs():
    return [dim]
