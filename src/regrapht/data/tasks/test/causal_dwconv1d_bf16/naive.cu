#include <cuda_bf16.h>

// One thread per output (b, t, c): K taps of its channel down the time axis, then SiLU.
__global__ void dwconv_naive(int batch, int L, int C, int K, const __nv_bfloat16* x, const float* w, const float* bias,
                             float* y) {
    const long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= (long long)batch * L * C) return;
    const int c = (int)(idx % C);
    const long long bt = idx / C;
    const int t = (int)(bt % L);
    float acc = bias[c];
    for (int k = 0; k < K; ++k) {
        const int src = t - K + 1 + k;
        if (src >= 0) acc += w[c * K + k] * __bfloat162float(x[(bt - t + src) * C + c]);
    }
    y[idx] = acc / (1.0f + expf(-acc));
}

void causal_dwconv1d_bf16(int batch, int L, int C, int K, const unsigned short* x, const float* w, const float* bias,
                          float* y) {
    const long long total = (long long)batch * L * C;
    if (total <= 0) return;
    dwconv_naive<<<(unsigned)((total + 255) / 256), 256>>>(batch, L, C, K, reinterpret_cast<const __nv_bfloat16*>(x),
                                                          w, bias, y);
}
