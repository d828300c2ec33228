"""Row softmax in Triton that does not compile: tl.arange is given the runtime column count, but
its bounds must be compile-time constants (tl.constexpr). Triton reports it at the first launch."""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols):
    row = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, n_cols)
    v = tl.load(x_ptr + row * n_cols + offs)
    v = v - tl.max(v, axis=0)
    e = tl.exp(v)
    tl.store(y_ptr + row * n_cols + offs, e / tl.sum(e, axis=0))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        y = torch.empty_like(x)
        rows, cols = x.shape
        softmax_kernel[(rows,)](x, y, cols)
        return y
