# GroupNorm in Triton: a group of an NCHW image is one contiguous run of (C / G) * H * W values, so
# one program per (image, group) reads it three times: the mean, the variance around it (two passes
# rather than E[x^2] - E[x]^2, which cancels), and the normalised, scaled and shifted output.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _groupnorm(x_ptr, w_ptr, b_ptr, y_ptr, group_len, hw, cpg, G, eps, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    g = pid % G
    base = pid * group_len
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, group_len, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + base + offs, mask=offs < group_len, other=0.0)
    mean = tl.sum(acc, axis=0) / group_len
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, group_len, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        mask = offs < group_len
        d = tl.where(mask, tl.load(x_ptr + base + offs, mask=mask, other=0.0) - mean, 0.0)
        acc += d * d
    rstd = 1.0 / tl.sqrt(tl.sum(acc, axis=0) / group_len + eps)
    for start in range(0, group_len, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        mask = offs < group_len
        c = g * cpg + offs // hw
        w = tl.load(w_ptr + c, mask=mask, other=0.0)
        b = tl.load(b_ptr + c, mask=mask, other=0.0)
        v = tl.load(x_ptr + base + offs, mask=mask, other=0.0)
        tl.store(y_ptr + base + offs, (v - mean) * rstd * w + b, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, groups: int, channels: int):
        super().__init__()
        self.norm = nn.GroupNorm(groups, channels, eps=1e-5)

    def forward(self, x):
        x = x.contiguous()
        n, c = x.shape[0], x.shape[1]
        hw = x.numel() // (n * c)
        groups = self.norm.num_groups
        group_len = (c // groups) * hw
        y = torch.empty_like(x)
        block = min(2048, triton.next_power_of_2(group_len))
        _groupnorm[(n * groups,)](x, self.norm.weight, self.norm.bias, y, group_len, hw, c // groups, groups,
                                  self.norm.eps, BLOCK=block)
        return y
