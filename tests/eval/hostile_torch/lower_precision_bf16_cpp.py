# Cheat: a C++ matmul that rounds its inputs to bfloat16 first (the tolerance against float64 catches
# it even where no conversion is dispatched).
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

_ext = load_inline(
    name="mm_bf16",
    cpp_sources="""
#include <cstring>
static float to_bf16(float v) { uint32_t b; std::memcpy(&b, &v, 4); b &= 0xFFFF0000u; std::memcpy(&v, &b, 4); return v; }
torch::Tensor mm_forward(torch::Tensor a, torch::Tensor b) {
    auto A = a.contiguous(); auto B = b.contiguous();
    int64_t M = A.size(0), K = A.size(1), N = B.size(1);
    auto C = torch::empty({M, N}, A.options());
    const float* pa = A.data_ptr<float>(); const float* pb = B.data_ptr<float>(); float* pc = C.data_ptr<float>();
    for (int64_t i = 0; i < M; ++i)
        for (int64_t j = 0; j < N; ++j) {
            float acc = 0.f;
            for (int64_t k = 0; k < K; ++k) acc += to_bf16(pa[i * K + k]) * to_bf16(pb[k * N + j]);
            pc[i * N + j] = acc;
        }
    return C;
}
""",
    functions=["mm_forward"],
)


class ModelNew(nn.Module):
    def forward(self, A, B):
        return _ext.mm_forward(A, B)
