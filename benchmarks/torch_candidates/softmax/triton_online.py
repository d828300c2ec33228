"""Row softmax in Triton: one program per row; an online (max, sum) sweep over tiles of the row, then
a sweep that writes exp(x - max) / sum. Rows of any length."""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * n_cols
    y_row = y_ptr + row * n_cols
    cols = tl.arange(0, BLOCK)
    m = tl.full([BLOCK], float("-inf"), tl.float32)
    s = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n_cols, BLOCK):
        offs = start + cols
        v = tl.load(x_row + offs, mask=offs < n_cols, other=float("-inf"))
        m_new = tl.maximum(m, v)
        # A lane that has seen only padding keeps m = -inf: exp(-inf - -inf) would be NaN.
        empty = m_new == float("-inf")
        s = tl.where(empty, 0.0, s * tl.exp(m - m_new) + tl.exp(v - m_new))
        m = m_new
    row_max = tl.max(m, axis=0)
    row_sum = tl.sum(tl.where(m == float("-inf"), 0.0, s * tl.exp(m - row_max)), axis=0)
    inv_sum = 1.0 / row_sum
    for start in range(0, n_cols, BLOCK):
        offs = start + cols
        mask = offs < n_cols
        v = tl.load(x_row + offs, mask=mask, other=0.0)
        tl.store(y_row + offs, tl.exp(v - row_max) * inv_sum, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        y = torch.empty_like(x)
        rows, cols = x.shape
        if rows > 0 and cols > 0:
            softmax_kernel[(rows,)](x, y, cols, BLOCK=2048, num_warps=8)
        return y
