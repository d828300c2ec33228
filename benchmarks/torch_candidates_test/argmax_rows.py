# Row argmax in Triton: one program per row walks the row in chunks, keeping the running maximum and
# the first index that reached it (a later chunk replaces it only when strictly greater).
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _argmax_rows(x_ptr, out_ptr, cols, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    base = x_ptr + row * cols
    best = float("-inf")
    best_i = 0
    for start in range(0, cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        v = tl.load(base + offs, mask=offs < cols, other=float("-inf"))
        m = tl.max(v, axis=0)
        i = tl.min(tl.where(v == m, offs, cols), axis=0)
        take = m > best
        best_i = tl.where(take, i, best_i)
        best = tl.where(take, m, best)
    tl.store(out_ptr + row, best_i.to(tl.int64))


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        cols = x.shape[-1]
        rows = x.numel() // cols if cols else 0
        out = torch.empty(x.shape[:-1], dtype=torch.int64, device=x.device)
        if rows:
            block = min(2048, triton.next_power_of_2(cols))
            _argmax_rows[(rows,)](x, out, cols, BLOCK=block)
        return out
