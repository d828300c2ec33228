// steps: memory_coalescing, warp_shuffle_reduction
// One warp per polyline: lane k takes segments k, k + 32, ..., so a warp reads 32 consecutive
// vertices per step (coalesced) instead of 32 threads each reading its own polyline hundreds of
// bytes apart; the previous vertex of each segment comes from the neighbouring lane by a shuffle,
// and the per-lane sums are combined with a shuffle tree.
constexpr int kWarps = 8;

__global__ void __launch_bounds__(kWarps * 32) polyline_warp(int n, int points, const float2* __restrict__ xy,
                                                             float* __restrict__ length) {
    const int lane = threadIdx.x & 31;
    const long long i = static_cast<long long>(blockIdx.x) * kWarps + (threadIdx.x >> 5);
    if (i >= n) return;
    const float2* p = xy + i * points;
    float total = 0.0f;
    float2 carry = p[0];  // the vertex before this chunk, in lane 0's use
    for (int base = 0; base < points; base += 32) {
        const int k = base + lane;
        const float2 v = k < points ? p[k] : make_float2(0.0f, 0.0f);
        float2 prev;
        prev.x = __shfl_up_sync(0xffffffffu, v.x, 1);
        prev.y = __shfl_up_sync(0xffffffffu, v.y, 1);
        if (lane == 0) prev = carry;
        if (k >= 1 && k < points) {
            const float dx = v.x - prev.x, dy = v.y - prev.y;
            total += sqrtf(dx * dx + dy * dy);
        }
        carry.x = __shfl_sync(0xffffffffu, v.x, 31);
        carry.y = __shfl_sync(0xffffffffu, v.y, 31);
    }
#pragma unroll
    for (int d = 16; d > 0; d >>= 1) total += __shfl_xor_sync(0xffffffffu, total, d);
    if (lane == 0) length[i] = total;
}

void polyline_lengths(int n, int points, const float* xy, float* length) {
    if (n <= 0) return;
    polyline_warp<<<(n + kWarps - 1) / kWarps, kWarps * 32>>>(n, points, reinterpret_cast<const float2*>(xy), length);
}
