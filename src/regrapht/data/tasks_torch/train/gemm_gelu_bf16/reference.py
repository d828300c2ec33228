import torch
import torch.nn as nn
import torch.nn.functional as F

tokens = 8192
d_in = 8192
d_out = 8192


class Model(nn.Module):
    """gelu(linear(x)) in bfloat16."""

    def __init__(self, n_in: int, n_out: int):
        super().__init__()
        self.linear = nn.Linear(n_in, n_out).to(torch.bfloat16)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.gelu(self.linear(x))


def get_inputs():
    return [torch.randn(tokens, d_in, dtype=torch.bfloat16)]


def get_init_inputs():
    return [d_in, d_out]
