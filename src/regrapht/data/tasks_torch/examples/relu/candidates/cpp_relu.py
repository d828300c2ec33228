# Honest: ReLU in C++ through load_inline (cpu target; the same code path builds CUDA on cuda).
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

_ext = load_inline(
    name="relu_cpp",
    cpp_sources="""
torch::Tensor relu_forward(torch::Tensor x) {
    auto in = x.contiguous();
    auto out = torch::empty_like(in);
    const float* src = in.data_ptr<float>();
    float* dst = out.data_ptr<float>();
    for (int64_t i = 0; i < in.numel(); ++i) dst[i] = src[i] > 0.f ? src[i] : 0.f;
    return out;
}
""",
    functions=["relu_forward"],
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return _ext.relu_forward(x)
