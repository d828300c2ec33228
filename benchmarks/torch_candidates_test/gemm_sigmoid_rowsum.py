# sum_j sigmoid(x W^T + b)[i, j] in Triton. A tiled fp32 matmul (IEEE fp32 dots: the task forbids
# TF32) with the bias, the sigmoid and the sum over its BN columns fused into the epilogue, so the
# M x N product never reaches memory; each column tile writes one partial per row, and a second
# kernel adds a row's partials in a fixed order (deterministic, unlike atomics).
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _gemm_sigmoid_partial(x_ptr, w_ptr, b_ptr, part_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr,
                          BK: tl.constexpr):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    rm = (pm * BM + tl.arange(0, BM)).to(tl.int64)
    rn = (pn * BN + tl.arange(0, BN)).to(tl.int64)
    rk = tl.arange(0, BK)
    acc = tl.zeros([BM, BN], dtype=tl.float32)
    for k0 in range(0, K, BK):
        kk = k0 + rk
        a = tl.load(x_ptr + rm[:, None] * K + kk[None, :], mask=(rm[:, None] < M) & (kk[None, :] < K), other=0.0)
        b = tl.load(w_ptr + rn[None, :] * K + kk[:, None], mask=(rn[None, :] < N) & (kk[:, None] < K), other=0.0)
        acc = tl.dot(a, b, acc, input_precision="ieee")
    z = acc + tl.load(b_ptr + rn, mask=rn < N, other=0.0)[None, :]
    s = tl.where(rn[None, :] < N, 1.0 / (1.0 + tl.exp(-z)), 0.0)
    tl.store(part_ptr + pn * M + rm, tl.sum(s, axis=1), mask=rm < M)


@triton.jit
def _sum_partials(part_ptr, out_ptr, M, tiles, BLOCK: tl.constexpr):
    rm = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for t in range(0, tiles):
        acc += tl.load(part_ptr + t * M + rm, mask=rm < M, other=0.0)
    tl.store(out_ptr + rm, acc, mask=rm < M)


class ModelNew(nn.Module):
    def __init__(self, n_in: int, n_out: int):
        super().__init__()
        self.linear = nn.Linear(n_in, n_out)

    def forward(self, x):
        x = x.contiguous()
        m, k = x.shape
        n = self.linear.out_features
        big = m >= 128 and n >= 128
        bm, bn, bk = (128, 128, 32) if big else (32, 32, 32)
        tiles = triton.cdiv(n, bn)
        part = torch.empty((tiles, m), dtype=torch.float32, device=x.device)
        out = torch.empty(m, dtype=x.dtype, device=x.device)
        _gemm_sigmoid_partial[(triton.cdiv(m, bm), tiles)](x, self.linear.weight.contiguous(), self.linear.bias, part,
                                                           m, n, k, BM=bm, BN=bn, BK=bk,
                                                           num_warps=8 if big else 4, num_stages=3)
        _sum_partials[(triton.cdiv(m, 256),)](part, out, m, tiles, BLOCK=256)
        return out
