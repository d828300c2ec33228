// steps: vectorized_access, register_tiling
// When C is a multiple of 8, a thread owns 8 channels for 8 consecutive steps: it reads each input
// row once as one 16-byte load of 8 bf16 values (the port reads every value K times, 2 bytes at a
// time), keeps the K-row window and its 8 x K taps in registers (K is a template parameter, so the
// window slides by renaming registers), and writes each step's 8 outputs as two float4 stores.
// Consecutive threads take consecutive channel groups, so every load and store is coalesced.
// The window stays packed (8 bf16 in a uint4, widened when a step uses it): widened up front it held
// 88 floats and the kernel 162 registers, one 256-thread block per SM, too few loads and stores in
// flight for a streaming kernel; packed, two blocks fit for K <= 4 (__launch_bounds__ holds them to
// 128 registers; larger K would spill there, so they keep one block).
#include <cuda_bf16.h>

constexpr int STEPS = 8;

__device__ __forceinline__ void widen8(uint4 v, float* out) {
    const unsigned w[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
    for (int k = 0; k < 4; ++k) {
        out[2 * k] = __uint_as_float(w[k] << 16);
        out[2 * k + 1] = __uint_as_float(w[k] & 0xffff0000u);
    }
}

template <int K>
__global__ void __launch_bounds__(256, K <= 4 ? 2 : 1) dwconv_tile(int batch, int L, int C, const unsigned short* __restrict__ x,
                                                   const float* __restrict__ w, const float* __restrict__ bias,
                                                   float* __restrict__ y) {
    const int groups = C >> 3, chunks = (L + STEPS - 1) / STEPS;
    const long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= (long long)batch * chunks * groups) return;
    const int c0 = (int)(idx % groups) * 8;
    const long long rest = idx / groups;
    const int t0 = (int)(rest % chunks) * STEPS;
    const long long base = rest / chunks * L;  // b * L

    float tap[8][K], b8[8];
#pragma unroll
    for (int j = 0; j < 8; ++j) {
        b8[j] = __ldg(bias + c0 + j);
#pragma unroll
        for (int k = 0; k < K; ++k) tap[j][k] = __ldg(w + (c0 + j) * K + k);
    }
    uint4 win[STEPS + K - 1];  // rows t0-K+1 .. t0+STEPS-1, raw bf16 (all-zero bits are 0.0f)
#pragma unroll
    for (int r = 0; r < STEPS + K - 1; ++r) {
        const int src = t0 - K + 1 + r;
        win[r] = src >= 0 && src < L ? __ldg(reinterpret_cast<const uint4*>(x + (base + src) * C + c0))
                                     : make_uint4(0u, 0u, 0u, 0u);
    }
#pragma unroll
    for (int s = 0; s < STEPS; ++s) {
        if (t0 + s >= L) break;
        float rows[K][8];
#pragma unroll
        for (int k = 0; k < K; ++k) widen8(win[s + k], rows[k]);
        float out[8];
#pragma unroll
        for (int j = 0; j < 8; ++j) {
            float acc = b8[j];
#pragma unroll
            for (int k = 0; k < K; ++k) acc = fmaf(tap[j][k], rows[k][j], acc);
            out[j] = acc / (1.0f + __expf(-acc));
        }
        float4* dst = reinterpret_cast<float4*>(y + (base + t0 + s) * C + c0);
        dst[0] = make_float4(out[0], out[1], out[2], out[3]);
        dst[1] = make_float4(out[4], out[5], out[6], out[7]);
    }
}

__global__ void dwconv_scalar(int batch, int L, int C, int K, const __nv_bfloat16* __restrict__ x,
                              const float* __restrict__ w, const float* __restrict__ bias, float* __restrict__ y) {
    const long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= (long long)batch * L * C) return;
    const int c = (int)(idx % C);
    const long long bt = idx / C;
    const int t = (int)(bt % L);
    float acc = __ldg(bias + c);
    for (int k = 0; k < K; ++k) {
        const int src = t - K + 1 + k;
        if (src >= 0) acc = fmaf(__ldg(w + c * K + k), __bfloat162float(x[(bt - t + src) * C + c]), acc);
    }
    y[idx] = acc / (1.0f + __expf(-acc));
}

template <int K>
static void launch(int batch, int L, int C, const unsigned short* x, const float* w, const float* bias, float* y) {
    const long long work = (long long)batch * ((L + STEPS - 1) / STEPS) * (C / 8);
    dwconv_tile<K><<<(unsigned)((work + 255) / 256), 256>>>(batch, L, C, x, w, bias, y);
}

void causal_dwconv1d_bf16(int batch, int L, int C, int K, const unsigned short* x, const float* w, const float* bias,
                          float* y) {
    if ((long long)batch * L * C <= 0) return;
    if (C % 8 == 0) {
        switch (K) {
            case 1: launch<1>(batch, L, C, x, w, bias, y); return;
            case 2: launch<2>(batch, L, C, x, w, bias, y); return;
            case 3: launch<3>(batch, L, C, x, w, bias, y); return;
            case 4: launch<4>(batch, L, C, x, w, bias, y); return;
            case 5: launch<5>(batch, L, C, x, w, bias, y); return;
            case 6: launch<6>(batch, L, C, x, w, bias, y); return;
            case 7: launch<7>(batch, L, C, x, w, bias, y); return;
            case 8: launch<8>(batch, L, C, x, w, bias, y); return;
            default: break;
        }
    }
    const long long total = (long long)batch * L * C;
    dwconv_scalar<<<(unsigned)((total + 255) / 256), 256>>>(batch, L, C, K, reinterpret_cast<const __nv_bfloat16*>(x),
                                                           w, bias, y);
}
