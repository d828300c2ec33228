# Honest: ReLU as a CUDA kernel through load_inline.
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

_ext = load_inline(
    name="relu_cuda",
    cpp_sources="torch::Tensor relu_forward(torch::Tensor x);",
    cuda_sources="""
__global__ void relu_kernel(const float* __restrict__ x, float* __restrict__ y, long n) {
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] > 0.f ? x[i] : 0.f;
}
torch::Tensor relu_forward(torch::Tensor x) {
    auto in = x.contiguous();
    auto out = torch::empty_like(in);
    long n = in.numel();
    if (n > 0) relu_kernel<<<(n + 255) / 256, 256>>>(in.data_ptr<float>(), out.data_ptr<float>(), n);
    return out;
}
""",
    functions=["relu_forward"],
)


class ModelNew(nn.Module):
    def forward(self, x):
        return _ext.relu_forward(x)
