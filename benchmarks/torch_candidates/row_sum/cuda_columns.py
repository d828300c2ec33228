"""Sum over dimension 1 in CUDA: a block of 32 x 8 threads owns 32 adjacent columns of one batch
entry; each of the 8 row groups sums every 8th row (coalesced 128-byte reads), and the 8 partial
sums are added in a fixed order through shared memory."""

import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>

constexpr int COLS = 32, GROUPS = 8;

__global__ void __launch_bounds__(COLS * GROUPS) sum_dim1_kernel(const float* __restrict__ x, float* __restrict__ y,
                                                                int64_t d1, int64_t d2) {
    __shared__ float partial[GROUPS][COLS];
    const int64_t b = blockIdx.y;
    const int64_t j = (int64_t)blockIdx.x * COLS + threadIdx.x;
    float acc = 0.f;
    if (j < d2) {
        const float* xb = x + b * d1 * d2 + j;
        for (int64_t i = threadIdx.y; i < d1; i += GROUPS) acc += xb[i * d2];
    }
    partial[threadIdx.y][threadIdx.x] = acc;
    __syncthreads();
    if (threadIdx.y == 0 && j < d2) {
        float total = 0.f;
#pragma unroll
        for (int g = 0; g < GROUPS; ++g) total += partial[g][threadIdx.x];
        y[b * d2 + j] = total;
    }
}

torch::Tensor sum_dim1_forward(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda() && x.scalar_type() == torch::kFloat32 && x.dim() == 3,
                "sum_dim1_forward: expects a 3-D float32 CUDA tensor");
    auto xc = x.contiguous();
    const int64_t B = xc.size(0), d1 = xc.size(1), d2 = xc.size(2);
    auto y = torch::empty({B, 1, d2}, xc.options());
    if (B == 0 || d2 == 0) return y;
    if (d1 == 0) return y.zero_();
    const dim3 grid((unsigned)((d2 + COLS - 1) / COLS), (unsigned)B);
    const dim3 block(COLS, GROUPS);
    sum_dim1_kernel<<<grid, block, 0, at::cuda::getCurrentCUDAStream()>>>(xc.data_ptr<float>(), y.data_ptr<float>(), d1, d2);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return y;
}
"""

cpp_source = "torch::Tensor sum_dim1_forward(torch::Tensor x);"

_ext = load_inline(
    name="tvk_row_sum_cuda_columns",
    cpp_sources=cpp_source,
    cuda_sources=cuda_source,
    functions=["sum_dim1_forward"],
    extra_cuda_cflags=["-O3"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return _ext.sum_dim1_forward(x)
