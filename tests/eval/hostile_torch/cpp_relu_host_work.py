# Hostile: an honest C++ ReLU whose forward also spends milliseconds of host work first. On cuda,
# behind the timing's hold, host work in the forward's dispatch is not in its event time; the
# dispatch gate (eval/torch_verdicts.py, hidden_dispatch) counts what exceeds an honest launch path.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

_ext = load_inline(
    name="relu_cpp_host_work",
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

SPIN = 300_000  # Python iterations: about 10 ms of host work a call, several times the C++ loop's


class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        acc = 0
        for i in range(SPIN):
            acc += i
        return _ext.relu_forward(x)
