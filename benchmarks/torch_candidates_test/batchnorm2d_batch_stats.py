# BatchNorm2d with batch statistics in Triton, in three launches: (1) a program per (image, channel)
# plane computes the plane's mean and its sum of squared deviations (two passes over a contiguous
# plane); (2) a program per channel merges its planes' partials with Chan's parallel formula (exact,
# no E[x^2] - E[x]^2 cancellation) into a scale and a shift; (3) an elementwise pass y = x * a + b.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _plane_stats(x_ptr, mean_ptr, m2_ptr, hw, BLOCK: tl.constexpr):
    plane = tl.program_id(0).to(tl.int64)
    base = x_ptr + plane * hw
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, hw, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(base + offs, mask=offs < hw, other=0.0)
    mean = tl.sum(acc, axis=0) / hw
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, hw, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        mask = offs < hw
        d = tl.where(mask, tl.load(base + offs, mask=mask, other=0.0) - mean, 0.0)
        acc += d * d
    tl.store(mean_ptr + plane, mean)
    tl.store(m2_ptr + plane, tl.sum(acc, axis=0))


@triton.jit
def _channel_affine(mean_ptr, m2_ptr, w_ptr, b_ptr, scale_ptr, shift_ptr, N, C, hw, eps, BLOCK: tl.constexpr):
    c = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    # equal-sized planes: the merged mean is their mean, the merged M2 adds hw * (mean_i - mean)^2
    sm = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, N, BLOCK):
        i = start + offs
        sm += tl.load(mean_ptr + i * C + c, mask=i < N, other=0.0)
    mean = tl.sum(sm, axis=0) / N
    m2 = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, N, BLOCK):
        i = start + offs
        mask = i < N
        d = tl.where(mask, tl.load(mean_ptr + i * C + c, mask=mask, other=0.0) - mean, 0.0)
        m2 += tl.load(m2_ptr + i * C + c, mask=mask, other=0.0) + hw * d * d
    var = tl.sum(m2, axis=0) / (N * hw)
    a = tl.load(w_ptr + c) / tl.sqrt(var + eps)
    tl.store(scale_ptr + c, a)
    tl.store(shift_ptr + c, tl.load(b_ptr + c) - mean * a)


@triton.jit
def _apply(x_ptr, scale_ptr, shift_ptr, y_ptr, C, hw, BLOCK: tl.constexpr):
    plane = tl.program_id(0).to(tl.int64)
    c = plane % C
    offs = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < hw
    v = tl.load(x_ptr + plane * hw + offs, mask=mask, other=0.0)
    tl.store(y_ptr + plane * hw + offs, v * tl.load(scale_ptr + c) + tl.load(shift_ptr + c), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, channels: int):
        super().__init__()
        self.weight = nn.Parameter(1.0 + 0.1 * torch.randn(channels))
        self.bias = nn.Parameter(0.1 * torch.randn(channels))

    def forward(self, x):
        x = x.contiguous()
        n, c, h, w = x.shape
        hw = h * w
        dev = x.device
        mean = torch.empty(n * c, dtype=torch.float32, device=dev)
        m2 = torch.empty(n * c, dtype=torch.float32, device=dev)
        scale = torch.empty(c, dtype=torch.float32, device=dev)
        shift = torch.empty(c, dtype=torch.float32, device=dev)
        y = torch.empty_like(x)
        block = min(2048, triton.next_power_of_2(hw))
        _plane_stats[(n * c,)](x, mean, m2, hw, BLOCK=block)
        _channel_affine[(c,)](mean, m2, self.weight, self.bias, scale, shift, n, c, hw, 1e-5,
                              BLOCK=min(1024, triton.next_power_of_2(n)))
        _apply[(n * c, triton.cdiv(hw, block))](x, scale, shift, y, c, hw, BLOCK=block)
        return y
