#include <cuda_bf16.h>

// One thread per output Y[r][c]: both of its dot products (gate column c, up column N + c) in fp32
// on the CUDA cores, walking down W's columns, then the biases, the exact GELU and the product.
__global__ void geglu_naive(int M, int N, int K, const __nv_bfloat16* X, const __nv_bfloat16* W,
                            const float* bias, float* Y) {
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    const int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r >= M || c >= N) return;
    const __nv_bfloat16* a = X + (long long)r * K;
    const __nv_bfloat16* wg = W + c;
    float gate = bias[c], up = bias[N + c];
    for (int t = 0; t < K; ++t, wg += 2LL * N) {
        const float av = __bfloat162float(a[t]);
        gate = fmaf(av, __bfloat162float(wg[0]), gate);
        up = fmaf(av, __bfloat162float(wg[N]), up);
    }
    Y[(long long)r * N + c] = 0.5f * gate * erfcf(-gate * 0.70710678f) * up;
}

void geglu_proj_bf16(int M, int N, int K, const unsigned short* X, const unsigned short* W, const float* bias,
                     float* Y) {
    if (M <= 0 || N <= 0) return;
    const dim3 block(32, 8);
    const dim3 grid((N + 31) / 32, (M + 7) / 8);
    geglu_naive<<<grid, block>>>(M, N, K, reinterpret_cast<const __nv_bfloat16*>(X),
                                 reinterpret_cast<const __nv_bfloat16*>(W), bias, Y);
}
