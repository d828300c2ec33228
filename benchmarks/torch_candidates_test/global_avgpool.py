# Global average pooling in Triton: one program per (batch, channel) plane, a chunked sum in fp32.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _plane_mean(x_ptr, out_ptr, hw, BLOCK: tl.constexpr):
    plane = tl.program_id(0).to(tl.int64)
    base = x_ptr + plane * hw
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, hw, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(base + offs, mask=offs < hw, other=0.0)
    tl.store(out_ptr + plane, tl.sum(acc, axis=0) / hw)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        n, c, h, w = x.shape
        out = torch.empty((n, c, 1, 1), dtype=x.dtype, device=x.device)
        if n * c:
            block = min(1024, triton.next_power_of_2(h * w))
            _plane_mean[(n * c,)](x, out, h * w, BLOCK=block)
        return out
