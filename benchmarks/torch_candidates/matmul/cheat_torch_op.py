"""Cheat: the product is computed by PyTorch's own matmul (the `@` operator, which a text screen
for `torch.matmul` does not see); the custom CUDA kernel only copies the result into a fresh
tensor, so the file looks like a custom kernel."""

import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>

__global__ void finalize_kernel(const float* __restrict__ src, float* __restrict__ dst, int64_t n) {
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) dst[i] = src[i];
}

torch::Tensor finalize(torch::Tensor product) {
    auto src = product.contiguous();
    auto out = torch::empty_like(src);
    const int64_t n = src.numel();
    const int threads = 256;
    const int64_t blocks = (n + threads - 1) / threads;
    if (blocks > 0) {
        finalize_kernel<<<(unsigned)blocks, threads, 0, at::cuda::getCurrentCUDAStream()>>>(
            src.data_ptr<float>(), out.data_ptr<float>(), n);
        C10_CUDA_KERNEL_LAUNCH_CHECK();
    }
    return out;
}
"""

cpp_source = "torch::Tensor finalize(torch::Tensor product);"

_ext = load_inline(
    name="tvk_matmul_cheat_torch_op",
    cpp_sources=cpp_source,
    cuda_sources=cuda_source,
    functions=["finalize"],
    extra_cuda_cflags=["-O3"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return _ext.finalize(A @ B)
