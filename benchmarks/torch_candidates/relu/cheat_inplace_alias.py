"""Cheat: ReLU applied in place to the input, which is returned as the output.

No output is allocated and the input is overwritten: the result aliases input 0. A harness that runs
the reference first and compares afterwards sees the right values."""

import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>

__global__ void relu_inplace_kernel(float* __restrict__ x, int64_t n) {
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        const float v = x[i];
        x[i] = v < 0.f ? 0.f : v;
    }
}

torch::Tensor relu_inplace(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda() && x.is_contiguous() && x.scalar_type() == torch::kFloat32,
                "relu_inplace: expects a contiguous float32 CUDA tensor");
    const int64_t n = x.numel();
    const int threads = 256;
    const int64_t blocks = (n + threads - 1) / threads;
    if (blocks > 0) {
        relu_inplace_kernel<<<(unsigned)blocks, threads, 0, at::cuda::getCurrentCUDAStream()>>>(x.data_ptr<float>(), n);
        C10_CUDA_KERNEL_LAUNCH_CHECK();
    }
    return x;
}
"""

cpp_source = "torch::Tensor relu_inplace(torch::Tensor x);"

_ext = load_inline(
    name="tvk_relu_cheat_inplace_alias",
    cpp_sources=cpp_source,
    cuda_sources=cuda_source,
    functions=["relu_inplace"],
    extra_cuda_cflags=["-O3"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return _ext.relu_inplace(x.contiguous())
