# A ResNet basic block in fp32 with Triton kernels only (no library operator). A 3x3 convolution is
# an implicit GEMM: rows are output pixels (n, h, w), columns output channels, the reduction runs
# over r = (ci, dy, dx) with the input gathered tile by tile and zero padding from the masks; IEEE
# fp32 dots (the task forbids TF32). Batch statistics: a program per (image, channel) plane gives
# the plane's mean and squared deviations, a program per channel merges them with Chan's formula into
# a scale and shift. bn1 + relu is applied while conv2 gathers its input (never stored), and the
# last pass computes relu(x + bn2(conv2)).
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _conv3x3(x_ptr, w_ptr, scale_ptr, shift_ptr, y_ptr, NB, C, CO, H, W, PRE: tl.constexpr,
             BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    HW = H * W
    m = (pm * BM + tl.arange(0, BM)).to(tl.int64)
    co = pn * BN + tl.arange(0, BN)
    img = m // HW
    hw = m % HW
    oh = hw // W
    ow = hw % W
    K = C * 9
    rk = tl.arange(0, BK)
    acc = tl.zeros([BM, BN], dtype=tl.float32)
    for k0 in range(0, K, BK):
        r = k0 + rk
        ci = r // 9
        dy = (r % 9) // 3 - 1
        dx = r % 3 - 1
        ih = oh[:, None] + dy[None, :]
        iw = ow[:, None] + dx[None, :]
        ok = (m[:, None] < NB * HW) & (r[None, :] < K) & (ih >= 0) & (ih < H) & (iw >= 0) & (iw < W)
        a = tl.load(x_ptr + img[:, None] * C * HW + ci[None, :] * HW + ih * W + iw, mask=ok, other=0.0)
        if PRE:  # relu(bn(.)) of the previous convolution, zero where the padding is
            sc = tl.load(scale_ptr + ci, mask=r < K, other=0.0)
            sh = tl.load(shift_ptr + ci, mask=r < K, other=0.0)
            a = tl.where(ok, tl.maximum(a * sc[None, :] + sh[None, :], 0.0), 0.0)
        b = tl.load(w_ptr + co[None, :] * K + r[:, None], mask=(co[None, :] < CO) & (r[:, None] < K), other=0.0)
        acc = tl.dot(a, b, acc, input_precision="ieee")
    out = y_ptr + img[:, None] * CO * HW + co[None, :] * HW + hw[:, None]
    tl.store(out, acc, mask=(m[:, None] < NB * HW) & (co[None, :] < CO))


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
def _bn_add_relu(y_ptr, x_ptr, scale_ptr, shift_ptr, out_ptr, C, hw, BLOCK: tl.constexpr):
    plane = tl.program_id(0).to(tl.int64)
    c = plane % C
    offs = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < hw
    y = tl.load(y_ptr + plane * hw + offs, mask=mask, other=0.0)
    x = tl.load(x_ptr + plane * hw + offs, mask=mask, other=0.0)
    v = x + y * tl.load(scale_ptr + c) + tl.load(shift_ptr + c)
    tl.store(out_ptr + plane * hw + offs, tl.maximum(v, 0.0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, channels: int):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels, track_running_stats=False)
        self.bn2 = nn.BatchNorm2d(channels, track_running_stats=False)

    def _conv(self, x, conv, scale=None, shift=None):
        n, c, h, w = x.shape
        y = torch.empty_like(x)
        big = n * h * w >= 128 and c >= 64
        bm, bn, bk = (128, 64, 32) if big else (32, 32, 32)
        pre = scale is not None
        grid = (triton.cdiv(n * h * w, bm), triton.cdiv(c, bn))
        _conv3x3[grid](x, conv.weight.contiguous(), scale if pre else x, shift if pre else x, y, n, c, c, h, w,
                       PRE=pre, BM=bm, BN=bn, BK=bk, num_warps=4, num_stages=3)
        return y

    def _affine(self, y, bn):
        n, c, h, w = y.shape
        hw = h * w
        mean = torch.empty(n * c, dtype=torch.float32, device=y.device)
        m2 = torch.empty(n * c, dtype=torch.float32, device=y.device)
        scale = torch.empty(c, dtype=torch.float32, device=y.device)
        shift = torch.empty(c, dtype=torch.float32, device=y.device)
        _plane_stats[(n * c,)](y, mean, m2, hw, BLOCK=min(2048, triton.next_power_of_2(hw)))
        _channel_affine[(c,)](mean, m2, bn.weight, bn.bias, scale, shift, n, c, hw, bn.eps,
                              BLOCK=min(1024, triton.next_power_of_2(n)))
        return scale, shift

    def forward(self, x):
        x = x.contiguous()
        y1 = self._conv(x, self.conv1)
        s1, t1 = self._affine(y1, self.bn1)
        y2 = self._conv(y1, self.conv2, s1, t1)
        s2, t2 = self._affine(y2, self.bn2)
        n, c, h, w = x.shape
        out = torch.empty_like(x)
        block = min(1024, triton.next_power_of_2(h * w))
        _bn_add_relu[(n * c, triton.cdiv(h * w, block))](y2, x, s2, t2, out, c, h * w, BLOCK=block)
        return out
