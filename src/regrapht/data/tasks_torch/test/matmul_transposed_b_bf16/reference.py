import torch
import torch.nn as nn

m = 8192
k = 8192
n = 8192


class Model(nn.Module):
    """C = A @ B.T in bfloat16."""

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return a @ b.t()


def get_inputs():
    return [torch.randn(m, k, dtype=torch.bfloat16), torch.randn(n, k, dtype=torch.bfloat16)]


def get_init_inputs():
    return []
