"""Prefix sum in Triton with an off-by-one: it writes the exclusive scan (the sum of the elements
before j) where the task asks for the inclusive one (up to and including j)."""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def cumsum_kernel(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * n_cols
    y_row = y_ptr + row * n_cols
    cols = tl.arange(0, BLOCK)
    carry = tl.sum(tl.zeros([BLOCK], tl.float32), axis=0)
    for start in range(0, n_cols, BLOCK):
        offs = start + cols
        mask = offs < n_cols
        v = tl.load(x_row + offs, mask=mask, other=0.0)
        inclusive = tl.cumsum(v, axis=0)
        tl.store(y_row + offs, carry + inclusive - v, mask=mask)
        carry += tl.sum(v, axis=0)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        y = torch.empty_like(x)
        rows, cols = x.shape
        if rows > 0 and cols > 0:
            cumsum_kernel[(rows,)](x, y, cols, BLOCK=1024, num_warps=4)
        return y
