import torch
import torch.nn as nn

batch = 128
m = 512
k = 256
n = 512


class Model(nn.Module):
    """Batched C = A @ B."""

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return torch.bmm(a, b)


def get_inputs():
    return [torch.randn(batch, m, k), torch.randn(batch, k, n)]


def get_init_inputs():
    return []
