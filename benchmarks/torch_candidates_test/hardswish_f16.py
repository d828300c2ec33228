# Hard swish in Triton: one pass, fp32 arithmetic, fp16 store.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _hardswish(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    r = tl.minimum(tl.maximum(x + 3.0, 0.0), 6.0)
    tl.store(y_ptr + offs, (x * r / 6.0).to(y_ptr.dtype.element_ty), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        if n:
            _hardswish[(triton.cdiv(n, 2048),)](x, y, n, BLOCK=2048)
        return y
