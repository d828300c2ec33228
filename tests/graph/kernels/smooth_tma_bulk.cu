// regrapht-expect: parallelize, launch_config_tuning, read_only_cache, tma_bulk_copy, vectorized_access
#include <cstdint>

// Whole tiles through the Tensor Memory Accelerator. A block owns a tile of 1024 floats (4 KB): one
// thread arms an mbarrier with the tile's byte count and issues a single cp.async.bulk copy of the
// tile into shared memory; the other threads issue no loads at all and wait on the barrier's phase.
// Each thread then computes its 4 outputs from the tile, taking its neighbours from the tile as well
// (only the tile's first and last thread read one value from global memory). Only full tiles go
// through the bulk copy (both addresses 16-byte aligned, size a multiple of 16); the groups of a
// partial last tile use the float4 kernel, the n % 4 tail and misaligned buffers the scalar one.
// Mirrored ends: x[-1] = x[1], x[n] = x[n-2].
constexpr int kThreads = 256;
constexpr unsigned kTileBytes = kThreads * 16;

__global__ void smooth_one(int start, int n, const float* __restrict__ x, float w_side, float w_mid,
                           float* __restrict__ y) {
    long long i = start + static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= n) return;
    if (n == 1) {
        y[0] = x[0];
        return;
    }
    float left = (i > 0) ? x[i - 1] : x[1];
    float right = (i < n - 1) ? x[i + 1] : x[n - 2];
    y[i] = w_side * left + w_mid * x[i] + w_side * right;
}

__global__ void __launch_bounds__(kThreads) smooth_vec4(int first, int groups, int n, const float* __restrict__ x,
                                                        float w_side, float w_mid, float* __restrict__ y) {
    long long g = first + static_cast<long long>(blockIdx.x) * kThreads + threadIdx.x;
    if (g >= groups) return;
    long long i0 = 4 * g;
    float4 v = reinterpret_cast<const float4*>(x)[g];
    float left = i0 > 0 ? x[i0 - 1] : x[1];           // n >= 4 here, so x[1] exists
    float right = i0 + 4 < n ? x[i0 + 4] : x[n - 2];  // i0 + 3 <= n - 1
    float4 r;
    r.x = w_side * left + w_mid * v.x + w_side * v.y;
    r.y = w_side * v.x + w_mid * v.y + w_side * v.z;
    r.z = w_side * v.y + w_mid * v.z + w_side * v.w;
    r.w = w_side * v.z + w_mid * v.w + w_side * right;
    reinterpret_cast<float4*>(y)[g] = r;
}

__global__ void __launch_bounds__(kThreads) smooth_tma(int n, const float* __restrict__ x, float w_side, float w_mid,
                                                       float* __restrict__ y) {
    __shared__ alignas(128) float4 tile[kThreads];
    __shared__ alignas(8) unsigned long long bar;
    const uint32_t bar_addr = static_cast<uint32_t>(__cvta_generic_to_shared(&bar));
    const uint32_t tile_addr = static_cast<uint32_t>(__cvta_generic_to_shared(tile));
    const long long g = static_cast<long long>(blockIdx.x) * kThreads + threadIdx.x;
    if (threadIdx.x == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar_addr) : "memory");
        // make the initialized barrier visible to the async proxy (the TMA unit) before the copy
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        const float* src = x + static_cast<long long>(blockIdx.x) * (kThreads * 4);
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar_addr), "r"(kTileBytes)
                     : "memory");
        asm volatile(
            "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(tile_addr),
            "l"(src), "r"(kTileBytes), "r"(bar_addr)
            : "memory");
    }
    uint32_t ready = 0;
    while (!ready) {  // phase 0 completes when the arrival and all kTileBytes have landed
        asm volatile(
            "{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\tselp.u32 %0, 1, 0, p;\n\t}"
            : "=r"(ready)
            : "r"(bar_addr), "r"(0u)
            : "memory");
    }
    const long long i0 = 4 * g;
    const float4 v = tile[threadIdx.x];
    float left, right;
    if (threadIdx.x > 0)
        left = tile[threadIdx.x - 1].w;
    else
        left = i0 > 0 ? x[i0 - 1] : x[1];
    if (threadIdx.x + 1 < kThreads)
        right = tile[threadIdx.x + 1].x;
    else
        right = i0 + 4 < n ? x[i0 + 4] : x[n - 2];
    float4 r;
    r.x = w_side * left + w_mid * v.x + w_side * v.y;
    r.y = w_side * v.x + w_mid * v.y + w_side * v.z;
    r.z = w_side * v.y + w_mid * v.z + w_side * v.w;
    r.w = w_side * v.z + w_mid * v.w + w_side * right;
    reinterpret_cast<float4*>(y)[g] = r;
}

void smooth_1d_3pt(int n, const float* x, float w_side, float* y) {
    if (n <= 0) return;
    float w_mid = 1.0f - 2.0f * w_side;
    bool aligned = ((reinterpret_cast<uintptr_t>(x) | reinterpret_cast<uintptr_t>(y)) & 15) == 0;
    int groups = (aligned && n >= 4) ? n / 4 : 0;
    int tiles = groups / kThreads;
    if (tiles > 0) smooth_tma<<<tiles, kThreads>>>(n, x, w_side, w_mid, y);
    int first = tiles * kThreads;
    if (groups > first)
        smooth_vec4<<<(groups - first + kThreads - 1) / kThreads, kThreads>>>(first, groups, n, x, w_side, w_mid, y);
    int start = 4 * groups;
    int rest = n - start;
    if (rest > 0) smooth_one<<<(rest + kThreads - 1) / kThreads, kThreads>>>(start, n, x, w_side, w_mid, y);
}
