import torch
import torch.nn as nn

m = 16384
k = 16384


class Model(nn.Module):
    """y = A @ x."""

    def forward(self, a: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
        return torch.mv(a, x)


def get_inputs():
    return [torch.randn(m, k), torch.randn(k)]


def get_init_inputs():
    return []
