import torch
import torch.nn as nn
import torch.nn.functional as F

tokens = 8192
d_model = 4096
hidden = 8192


class Model(nn.Module):
    """The SwiGLU MLP."""

    def __init__(self, d_model: int, hidden: int):
        super().__init__()
        self.gate = nn.Linear(d_model, hidden, bias=False).to(torch.bfloat16)
        self.up = nn.Linear(d_model, hidden, bias=False).to(torch.bfloat16)
        self.down = nn.Linear(hidden, d_model, bias=False).to(torch.bfloat16)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.down(F.silu(self.gate(x)) * self.up(x))


def get_inputs():
    return [torch.randn(tokens, d_model, dtype=torch.bfloat16)]


def get_init_inputs():
    return [d_model, hidden]
