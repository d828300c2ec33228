import torch
import torch.nn as nn
import torch.nn.functional as F

batch_size = 16
heads = 16
seq_len = 2048
head_dim = 64


class Model(nn.Module):
    """Scaled dot-product attention with a causal mask."""

    def forward(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        return F.scaled_dot_product_attention(q, k, v, is_causal=True)


def get_inputs():
    shape = (batch_size, heads, seq_len, head_dim)
    return [torch.randn(shape, dtype=torch.float16) for _ in range(3)]


def get_init_inputs():
    return []
