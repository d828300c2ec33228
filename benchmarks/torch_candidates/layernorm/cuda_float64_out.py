"""Layer normalization in CUDA that returns the wrong dtype: it computes in float64 and returns
a float64 tensor, where the reference returns float32. The values are, if anything, more accurate."""

import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>

constexpr int THREADS = 256;
constexpr int WARPS = (THREADS + 31) / 32;

// Sum over the block; every thread gets the total (each warp reduces the per-warp partials itself).
// The leading barrier lets the same shared array serve consecutive calls.
__device__ __forceinline__ double block_sum(double v, double* partial) {
    for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    __syncthreads();
    if (lane == 0) partial[warp] = v;
    __syncthreads();
    v = lane < WARPS ? partial[lane] : (double)0;
    for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
    return v;
}

// One block per row, three passes over the row (it stays in L1/L2): mean, then the biased variance
// from the centred values (no E[x^2] - E[x]^2 cancellation), then the affine output.
__global__ void layernorm_kernel(const float* __restrict__ x, const float* __restrict__ w, const float* __restrict__ b,
                                 double* __restrict__ y, int64_t cols, float eps) {
    __shared__ double partial[WARPS];
    const float* xr = x + (int64_t)blockIdx.x * cols;
    double* yr = y + (int64_t)blockIdx.x * cols;
    double s = 0;
    for (int64_t j = threadIdx.x; j < cols; j += THREADS) s += (double)xr[j];
    const double mean = block_sum(s, partial) / (double)cols;
    double q = 0;
    for (int64_t j = threadIdx.x; j < cols; j += THREADS) {
        const double d = (double)xr[j] - mean;
        q += d * d;
    }
    const double var = block_sum(q, partial) / (double)cols;
    const double rstd = (double)1 / sqrt(var + (double)eps);
    for (int64_t j = threadIdx.x; j < cols; j += THREADS) {
        yr[j] = (double)((((double)xr[j] - mean) * rstd) * (double)w[j] + (double)b[j]);
    }
}

torch::Tensor layernorm_forward(torch::Tensor x, torch::Tensor weight, torch::Tensor bias, double eps) {
    TORCH_CHECK(x.is_cuda() && x.scalar_type() == torch::kFloat32 && x.dim() == 2,
                "layernorm_forward: expects a 2-D float32 CUDA tensor");
    auto xc = x.contiguous();
    auto wc = weight.contiguous();
    auto bc = bias.contiguous();
    TORCH_CHECK(wc.numel() == xc.size(1) && bc.numel() == xc.size(1), "layernorm_forward: weight/bias size");
    auto y = torch::empty(xc.sizes(), xc.options().dtype(torch::kFloat64));
    const int64_t rows = xc.size(0), cols = xc.size(1);
    if (rows == 0 || cols == 0) return y;
    layernorm_kernel<<<(unsigned)rows, THREADS, 0, at::cuda::getCurrentCUDAStream()>>>(
        xc.data_ptr<float>(), wc.data_ptr<float>(), bc.data_ptr<float>(), y.data_ptr<double>(), cols, (float)eps);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return y;
}
"""

cpp_source = "torch::Tensor layernorm_forward(torch::Tensor x, torch::Tensor weight, torch::Tensor bias, double eps);"

_ext = load_inline(
    name="tvk_layernorm_cuda_float64_out",
    cpp_sources=cpp_source,
    cuda_sources=cuda_source,
    functions=["layernorm_forward"],
    extra_cuda_cflags=["-O3"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        # Created exactly as the reference creates them, so one seed gives both the same values.
        self.weight = nn.Parameter(1.0 + 0.1 * torch.randn(dim))
        self.bias = nn.Parameter(0.1 * torch.randn(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return _ext.layernorm_forward(x, self.weight, self.bias, 1e-5)
