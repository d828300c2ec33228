"""Sum over dimension 1 in CUDA with float4 loads that assume every row starts on a 16-byte
boundary, i.e. that dim2 is a multiple of 4. Where it is not, a row's float4 load is misaligned and
the kernel faults ('misaligned address', a sticky CUDA error that poisons the process's context).
Bench shapes with dim2 % 4 == 0 never show it."""

import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>

constexpr int THREADS = 256;

// One thread per 4 adjacent columns of one batch entry; the last quad of a row may be partial and is
// read element by element, but every full quad is read as one float4.
__global__ void __launch_bounds__(THREADS) sum_dim1_vec4_kernel(const float* __restrict__ x, float* __restrict__ y,
                                                               int64_t d1, int64_t d2) {
    const int64_t quads = (d2 + 3) / 4;
    const int64_t q = (int64_t)blockIdx.x * THREADS + threadIdx.x;
    const int64_t b = blockIdx.y;
    if (q >= quads) return;
    const int64_t j = q * 4;
    float a0 = 0.f, a1 = 0.f, a2 = 0.f, a3 = 0.f;
    for (int64_t i = 0; i < d1; ++i) {
        const float* p = x + (b * d1 + i) * d2 + j;
        if (j + 4 <= d2) {
            const float4 v = *reinterpret_cast<const float4*>(p);
            a0 += v.x; a1 += v.y; a2 += v.z; a3 += v.w;
        } else {
            a0 += p[0];
            if (j + 1 < d2) a1 += p[1];
            if (j + 2 < d2) a2 += p[2];
        }
    }
    float* out = y + b * d2 + j;
    out[0] = a0;
    if (j + 1 < d2) out[1] = a1;
    if (j + 2 < d2) out[2] = a2;
    if (j + 3 < d2) out[3] = a3;
}

torch::Tensor sum_dim1_forward(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda() && x.scalar_type() == torch::kFloat32 && x.dim() == 3,
                "sum_dim1_forward: expects a 3-D float32 CUDA tensor");
    auto xc = x.contiguous();
    const int64_t B = xc.size(0), d1 = xc.size(1), d2 = xc.size(2);
    auto y = torch::empty({B, 1, d2}, xc.options());
    if (B == 0 || d2 == 0) return y;
    const int64_t quads = (d2 + 3) / 4;
    const dim3 grid((unsigned)((quads + THREADS - 1) / THREADS), (unsigned)B);
    sum_dim1_vec4_kernel<<<grid, THREADS, 0, at::cuda::getCurrentCUDAStream()>>>(xc.data_ptr<float>(), y.data_ptr<float>(), d1, d2);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return y;
}
"""

cpp_source = "torch::Tensor sum_dim1_forward(torch::Tensor x);"

_ext = load_inline(
    name="tvk_row_sum_cuda_misaligned_vec4",
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
