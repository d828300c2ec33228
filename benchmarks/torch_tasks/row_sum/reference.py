import torch
import torch.nn as nn

batch_size = 32
dim1 = 1024
dim2 = 1024


class Model(nn.Module):
    """Sum over dimension 1 of a [batch_size, dim1, dim2] tensor, keeping the dimension."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.sum(x, dim=1, keepdim=True)


def get_inputs():
    return [torch.randn(batch_size, dim1, dim2)]


def get_init_inputs():
    return []
