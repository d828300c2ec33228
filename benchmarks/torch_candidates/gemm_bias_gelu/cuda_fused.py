"""GEMM + bias + GELU in CUDA, fused: y = gelu(x @ W^T + b) from one kernel. 64 x 64 output tiles,
a 4 x 4 register block per thread, float32 FMAs; the bias and the exact erf GELU are applied to the
accumulators before the single store."""

import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>

constexpr int BM = 64, BN = 64, BK = 16, TM = 4, TN = 4, THREADS = 256;

// x [M, K] and W [N, K] are both K-contiguous: both tiles are loaded along k (coalesced) and stored
// k-major in shared memory; +4 keeps rows 16-byte aligned and spreads the transposing stores.
__global__ void __launch_bounds__(THREADS) linear_gelu_kernel(const float* __restrict__ X, const float* __restrict__ W,
                                                             const float* __restrict__ bias, float* __restrict__ Y,
                                                             int M, int N, int K) {
    __shared__ float Xs[BK][BM + 4];
    __shared__ __align__(16) float Ws[BK][BN + 4];
    const int tid = threadIdx.x;
    const int tx = tid % (BN / TN);
    const int ty = tid / (BN / TN);
    const int row0 = blockIdx.y * BM;
    const int col0 = blockIdx.x * BN;
    float acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = 0.f;

    for (int k0 = 0; k0 < K; k0 += BK) {
        for (int e = tid; e < BM * BK; e += THREADS) {
            const int r = e / BK, c = e % BK;
            const int gr = row0 + r, gc = k0 + c;
            Xs[c][r] = (gr < M && gc < K) ? X[(int64_t)gr * K + gc] : 0.f;
        }
        for (int e = tid; e < BN * BK; e += THREADS) {
            const int r = e / BK, c = e % BK;
            const int gr = col0 + r, gc = k0 + c;
            Ws[c][r] = (gr < N && gc < K) ? W[(int64_t)gr * K + gc] : 0.f;
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BK; ++k) {
            float a[TM];
#pragma unroll
            for (int i = 0; i < TM; ++i) a[i] = Xs[k][ty * TM + i];
            const float4 b = *reinterpret_cast<const float4*>(&Ws[k][tx * TN]);
            const float bv[TN] = {b.x, b.y, b.z, b.w};
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(a[i], bv[j], acc[i][j]);
        }
        __syncthreads();
    }
#pragma unroll
    for (int j = 0; j < TN; ++j) {
        const int c = col0 + tx * TN + j;
        if (c >= N) continue;
        const float bj = bias[c];
#pragma unroll
        for (int i = 0; i < TM; ++i) {
            const int r = row0 + ty * TM + i;
            if (r < M) {
                const float v = acc[i][j] + bj;
                Y[(int64_t)r * N + c] = 0.5f * v * (1.f + erff(v * 0.70710678118654752f));
            }
        }
    }
}

torch::Tensor linear_gelu_forward(torch::Tensor x, torch::Tensor weight, torch::Tensor bias) {
    TORCH_CHECK(x.is_cuda() && x.scalar_type() == torch::kFloat32 && x.dim() == 2,
                "linear_gelu_forward: expects a 2-D float32 CUDA input");
    auto X = x.contiguous();
    auto W = weight.contiguous();
    auto b = bias.contiguous();
    const int M = (int)X.size(0), K = (int)X.size(1), N = (int)W.size(0);
    TORCH_CHECK(W.size(1) == K && b.numel() == N, "linear_gelu_forward: weight/bias shapes");
    auto Y = torch::empty({M, N}, X.options());
    if (M == 0 || N == 0) return Y;
    const dim3 grid((N + BN - 1) / BN, (M + BM - 1) / BM);
    linear_gelu_kernel<<<grid, THREADS, 0, at::cuda::getCurrentCUDAStream()>>>(
        X.data_ptr<float>(), W.data_ptr<float>(), b.data_ptr<float>(), Y.data_ptr<float>(), M, N, K);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return Y;
}
"""

cpp_source = "torch::Tensor linear_gelu_forward(torch::Tensor x, torch::Tensor weight, torch::Tensor bias);"

_ext = load_inline(
    name="tvk_gemm_bias_gelu_cuda_fused",
    cpp_sources=cpp_source,
    cuda_sources=cuda_source,
    functions=["linear_gelu_forward"],
    extra_cuda_cflags=["-O3"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        # Kept for its parameters (created as the reference creates them); its forward is never called.
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return _ext.linear_gelu_forward(x, self.linear.weight, self.linear.bias)
