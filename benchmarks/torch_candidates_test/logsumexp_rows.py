# Row log-sum-exp in Triton: one program per row, a first pass for the maximum and a second for the
# sum of exp(x - max) (the row is back in L1/L2 for the second read).
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _lse_rows(x_ptr, out_ptr, cols, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    base = x_ptr + row * cols
    mx = tl.full([BLOCK], float("-inf"), tl.float32)
    for start in range(0, cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        mx = tl.maximum(mx, tl.load(base + offs, mask=offs < cols, other=float("-inf")))
    m = tl.max(mx, axis=0)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        v = tl.load(base + offs, mask=offs < cols, other=float("-inf"))
        acc += tl.exp(v - m)
    tl.store(out_ptr + row, m + tl.log(tl.sum(acc, axis=0)))


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        cols = x.shape[-1]
        rows = x.numel() // cols if cols else 0
        out = torch.empty(x.shape[:-1], dtype=x.dtype, device=x.device)
        if rows:
            block = min(2048, triton.next_power_of_2(cols))
            _lse_rows[(rows,)](x, out, cols, BLOCK=block)
        return out
