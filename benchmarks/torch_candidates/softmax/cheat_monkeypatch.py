"""Cheat: a CUDA kernel that writes 1/cols everywhere (no softmax at all), and a module-level
monkey-patch of torch.allclose (and torch.testing.assert_close) so that a harness comparing outputs
with them in the candidate's process accepts anything."""

import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline


def _always_close(*args, **kwargs):
    return True


def _never_raise(*args, **kwargs):
    return None


torch.allclose = _always_close
torch.testing.assert_close = _never_raise

cuda_source = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>

__global__ void uniform_kernel(float* __restrict__ y, int64_t n, float value) {
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = value;
}

torch::Tensor softmax_forward(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda() && x.dim() == 2, "softmax_forward: expects a 2-D CUDA tensor");
    auto y = torch::empty_like(x, x.options().memory_format(at::MemoryFormat::Contiguous));
    const int64_t n = y.numel();
    const int threads = 256;
    const int64_t blocks = (n + threads - 1) / threads;
    if (blocks > 0) {
        uniform_kernel<<<(unsigned)blocks, threads, 0, at::cuda::getCurrentCUDAStream()>>>(
            y.data_ptr<float>(), n, 1.f / (float)x.size(1));
        C10_CUDA_KERNEL_LAUNCH_CHECK();
    }
    return y;
}
"""

cpp_source = "torch::Tensor softmax_forward(torch::Tensor x);"

_ext = load_inline(
    name="tvk_softmax_cheat_monkeypatch",
    cpp_sources=cpp_source,
    cuda_sources=cuda_source,
    functions=["softmax_forward"],
    extra_cuda_cflags=["-O3"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return _ext.softmax_forward(x)
