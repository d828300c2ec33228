# The memorizing candidate of issue 20 on the GPU, every operator it dispatches allowed (so the
# dispatch audit sees nothing): an honest Triton matmul, a cache keyed by the ratios of a few sampled
# elements (scale-invariant), and a Triton kernel that replays a cached output times the scales.
# NEAREST = False: exact keys (against one scale factor per timed call it replays every repeated set;
# against per-element perturbation it never recognizes one and does the work). NEAREST = True: the
# nearest key within 50% (it replays, wrongly: a checked round must catch it). The GPU test swaps it.
import torch
import torch.nn as nn
import triton
import triton.language as tl

NEAREST = False


@triton.jit
def _mm(a, b, c, M, N, K, sam, sak, sbk, sbn, scm, scn, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pm, pn = tl.program_id(0), tl.program_id(1)
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        ka = k0 + rk
        x = tl.load(a + rm[:, None] * sam + ka[None, :] * sak, mask=(rm[:, None] < M) & (ka[None, :] < K), other=0.0)
        y = tl.load(b + ka[:, None] * sbk + rn[None, :] * sbn, mask=(ka[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(x, y, input_precision="ieee")
    tl.store(c + rm[:, None] * scm + rn[None, :] * scn, acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def _scaled(src, dst, n, factor, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(dst + i, tl.load(src + i, mask=i < n) * factor, mask=i < n)


def _ratios(x):
    flat = x.reshape(-1)
    first = float(flat[0])
    return None if flat.numel() < 3 or first == 0.0 else (first, [float(flat[1]) / first, float(flat[2]) / first])


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.memory = []

    def forward(self, A, B):
        ra, rb = _ratios(A), _ratios(B)
        shape = (tuple(A.shape), tuple(B.shape))
        if ra is not None and rb is not None:
            key = ra[1] + rb[1]
            for seen, known, a0, b0, out in self.memory:
                close = all(abs(p - q) <= (0.5 * abs(q) if NEAREST else 1e-4 * abs(q)) for p, q in zip(key, known))
                if seen == shape and close:
                    result = torch.empty_like(out)
                    _scaled[(triton.cdiv(out.numel(), 1024),)](out, result, out.numel(), ra[0] / a0 * rb[0] / b0, BLOCK=1024)
                    return result
        M, K = A.shape
        N = B.shape[1]
        C = torch.empty((M, N), device=A.device, dtype=torch.float32)
        grid = (triton.cdiv(M, 64), triton.cdiv(N, 64))
        _mm[grid](A, B, C, M, N, K, A.stride(0), A.stride(1), B.stride(0), B.stride(1), C.stride(0), C.stride(1),
                  BM=64, BN=64, BK=32)
        if ra is not None and rb is not None and len(self.memory) < 4:  # the warm-up's sets
            self.memory.append((shape, ra[1] + rb[1], ra[0], rb[0], C.clone()))
        return C
