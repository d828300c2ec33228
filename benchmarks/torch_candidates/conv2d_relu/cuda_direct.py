"""Conv2d + ReLU in CUDA: direct convolution with the output channel's weights in shared memory,
float32 FMAs, bias and ReLU applied before the single store."""

import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>

constexpr int THREADS = 256;

// Direct convolution + ReLU, NCHW, stride 1, zero padding ks / 2. A block holds one (image, output
// channel) pair's weights in shared memory and computes 256 output pixels of it; consecutive threads
// take consecutive pixels of a row, so input reads coalesce and weight reads broadcast.
__global__ void __launch_bounds__(THREADS) conv2d_relu_kernel(const float* __restrict__ x, const float* __restrict__ w,
                                                             const float* __restrict__ bias, float* __restrict__ y,
                                                             int C, int H, int W, int OC, int ks) {
    extern __shared__ float wsh[];
    const int oc = blockIdx.y;
    const int n = blockIdx.z;
    const int wcount = C * ks * ks;
    for (int e = threadIdx.x; e < wcount; e += THREADS) wsh[e] = w[(int64_t)oc * wcount + e];
    __syncthreads();
    const int pixel = blockIdx.x * THREADS + threadIdx.x;
    if (pixel >= H * W) return;
    const int oh = pixel / W, ow = pixel % W;
    const int pad = ks / 2;
    float acc = 0.f;
    for (int c = 0; c < C; ++c) {
        const float* xc = x + ((int64_t)n * C + c) * H * W;
        const float* wc = wsh + c * ks * ks;
        for (int kh = 0; kh < ks; ++kh) {
            const int ih = oh + kh - pad;
            if (ih < 0 || ih >= H) continue;
            for (int kw = 0; kw < ks; ++kw) {
                const int iw = ow + kw - pad;
                if (iw < 0 || iw >= W) continue;
                acc = fmaf(xc[(int64_t)ih * W + iw], wc[kh * ks + kw], acc);
            }
        }
    }
    acc += bias[oc];
    y[(((int64_t)n * OC + oc) * H + oh) * W + ow] = acc < 0.f ? 0.f : acc;
}

torch::Tensor conv2d_relu_forward(torch::Tensor x, torch::Tensor weight, torch::Tensor bias) {
    TORCH_CHECK(x.is_cuda() && x.scalar_type() == torch::kFloat32 && x.dim() == 4,
                "conv2d_relu_forward: expects a 4-D float32 CUDA input");
    auto xc = x.contiguous();
    auto wc = weight.contiguous();
    auto bc = bias.contiguous();
    const int N = (int)xc.size(0), C = (int)xc.size(1), H = (int)xc.size(2), W = (int)xc.size(3);
    const int OC = (int)wc.size(0), ks = (int)wc.size(2);
    TORCH_CHECK(wc.size(1) == C && wc.size(3) == ks && ks % 2 == 1, "conv2d_relu_forward: weight shape");
    const size_t shared = (size_t)C * ks * ks * sizeof(float);
    TORCH_CHECK(shared <= 48 * 1024, "conv2d_relu_forward: in_channels * ks * ks too large for shared memory");
    auto y = torch::empty({N, OC, H, W}, xc.options());
    if (N == 0 || OC == 0 || H == 0 || W == 0) return y;
    const dim3 grid((H * W + THREADS - 1) / THREADS, OC, N);
    conv2d_relu_kernel<<<grid, THREADS, shared, at::cuda::getCurrentCUDAStream()>>>(
        xc.data_ptr<float>(), wc.data_ptr<float>(), bc.data_ptr<float>(), y.data_ptr<float>(), C, H, W, OC, ks);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return y;
}
"""

cpp_source = "torch::Tensor conv2d_relu_forward(torch::Tensor x, torch::Tensor weight, torch::Tensor bias);"

_ext = load_inline(
    name="tvk_conv2d_relu_cuda_direct",
    cpp_sources=cpp_source,
    cuda_sources=cuda_source,
    functions=["conv2d_relu_forward"],
    extra_cuda_cflags=["-O3"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, in_channels: int, out_channels: int, kernel_size: int):
        super().__init__()
        # Kept for its parameters (created as the reference creates them); its forward is never called.
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, padding=kernel_size // 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return _ext.conv2d_relu_forward(x, self.conv.weight, self.conv.bias)
