"""Sum in CUDA over the wrong axis: dimension 2 (the contiguous one) instead of dimension 1, one warp
per (batch, row); the [B, d1] result is returned as [B, 1, d1]. Where d1 == d2 the shape is right
and only the values are wrong."""

import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>

constexpr int WARPS = 8;

__global__ void __launch_bounds__(WARPS * 32) sum_last_kernel(const float* __restrict__ x, float* __restrict__ y,
                                                             int64_t rows, int64_t d2) {
    const int64_t row = (int64_t)blockIdx.x * WARPS + (threadIdx.x >> 5);
    const int lane = threadIdx.x & 31;
    if (row >= rows) return;
    const float* xr = x + row * d2;
    float acc = 0.f;
    for (int64_t j = lane; j < d2; j += 32) acc += xr[j];
    for (int off = 16; off > 0; off >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, off);
    if (lane == 0) y[row] = acc;
}

torch::Tensor sum_dim1_forward(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda() && x.scalar_type() == torch::kFloat32 && x.dim() == 3,
                "sum_dim1_forward: expects a 3-D float32 CUDA tensor");
    auto xc = x.contiguous();
    const int64_t B = xc.size(0), d1 = xc.size(1), d2 = xc.size(2);
    auto y = torch::zeros({B, 1, d1}, xc.options());
    const int64_t rows = B * d1;
    if (rows == 0) return y;
    const unsigned blocks = (unsigned)((rows + WARPS - 1) / WARPS);
    sum_last_kernel<<<blocks, WARPS * 32, 0, at::cuda::getCurrentCUDAStream()>>>(xc.data_ptr<float>(), y.data_ptr<float>(), rows, d2);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return y;
}
"""

cpp_source = "torch::Tensor sum_dim1_forward(torch::Tensor x);"

_ext = load_inline(
    name="tvk_row_sum_cuda_wrong_axis",
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
