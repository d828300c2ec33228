// steps: parallelize, vectorized_access
// Bandwidth-bound: each lane streams four aligned float4 quads (16 outputs) with all loads issued up
// front (48 regs: ~80 KB in flight per SM); the +-4 halo of a quad is the neighbouring lane's quad,
// fetched with register shuffles, so each byte of u is read once (one extra quad per 2 KB warp chunk).
// Only the first quad, the last one or two and the n % 4 tail take the scalar periodic-wrap path.
#include <cstdint>

constexpr int BLOCK = 256;
constexpr int QPL = 4;                 // quads (float4) per lane
constexpr int WARP_QUADS = 32 * QPL;   // quads per warp chunk

__device__ __forceinline__ float deriv8_wrap(int n, const float* __restrict__ u, int i, float inv_h) {
    const float coeff[4] = {4.0f / 5.0f, -1.0f / 5.0f, 4.0f / 105.0f, -1.0f / 280.0f};
    float acc = 0.0f;
#pragma unroll
    for (int k = 1; k <= 4; ++k) {
        int ip = (i + k) % n;
        int im = ((i - k) % n + n) % n;
        acc += coeff[k - 1] * (__ldg(u + ip) - __ldg(u + im));
    }
    return acc * inv_h;
}

__device__ __forceinline__ float4 deriv8_quad(float4 l, float4 c, float4 r, float inv_h) {
    const float w[12] = {l.x, l.y, l.z, l.w, c.x, c.y, c.z, c.w, r.x, r.y, r.z, r.w};
    float o[4];
#pragma unroll
    for (int j = 0; j < 4; ++j) {
        float acc = 0.0f;
        acc += (4.0f / 5.0f) * (w[4 + j + 1] - w[4 + j - 1]);
        acc += (-1.0f / 5.0f) * (w[4 + j + 2] - w[4 + j - 2]);
        acc += (4.0f / 105.0f) * (w[4 + j + 3] - w[4 + j - 3]);
        acc += (-1.0f / 280.0f) * (w[4 + j + 4] - w[4 + j - 4]);
        o[j] = acc * inv_h;
    }
    return make_float4(o[0], o[1], o[2], o[3]);
}

__device__ __forceinline__ float4 shfl4(float4 v, int src) {
    v.x = __shfl_sync(0xffffffffu, v.x, src);
    v.y = __shfl_sync(0xffffffffu, v.y, src);
    v.z = __shfl_sync(0xffffffffu, v.z, src);
    v.w = __shfl_sync(0xffffffffu, v.w, src);
    return v;
}

__global__ void __launch_bounds__(BLOCK) deriv8_quads(int n, const float* __restrict__ u, float inv_h,
                                                       float* __restrict__ du) {
    const int nq = n >> 2;  // full quads
    const int lane = threadIdx.x & 31;
    const long long warp = (static_cast<long long>(blockIdx.x) * BLOCK + threadIdx.x) >> 5;
    const long long base = warp * WARP_QUADS;  // first quad of this warp's chunk
    const float4* u4 = reinterpret_cast<const float4*>(u);
    float4* du4 = reinterpret_cast<float4*>(du);

    // The n % 4 trailing elements (all of them when n < 4) are done by the first threads of the grid.
    if (blockIdx.x == 0 && threadIdx.x < (n & 3)) {
        const int i = 4 * nq + static_cast<int>(threadIdx.x);
        du[i] = deriv8_wrap(n, u, i, inv_h);
    }
    if (base >= nq) return;  // warp-uniform: the whole warp leaves together

    // Issue every load first: QPL coalesced float4 quads per lane plus one halo quad at each chunk end.
    float4 c[QPL];
#pragma unroll
    for (int k = 0; k < QPL; ++k) {
        const long long q = base + 32 * k + lane;
        c[k] = q < nq ? __ldg(u4 + q) : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    }
    float4 halo = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    if (lane == 0 && base >= 1) halo = __ldg(u4 + base - 1);
    if (lane == 31 && base + WARP_QUADS < nq) halo = __ldg(u4 + base + WARP_QUADS);

    // Left neighbour of (k, lane) is (k, lane - 1); for lane 0 it is (k - 1, lane 31) or the halo. Lane 31
    // is read only by lane 0 in the left shift, so it sends c[k - 1]; symmetrically lane 0 sends c[k + 1].
#pragma unroll
    for (int k = 0; k < QPL; ++k) {
        const long long q = base + 32 * k + lane;
        float4 l = shfl4(lane == 31 && k > 0 ? c[k > 0 ? k - 1 : 0] : c[k], (lane + 31) & 31);
        float4 r = shfl4(lane == 0 && k < QPL - 1 ? c[k < QPL - 1 ? k + 1 : k] : c[k], (lane + 1) & 31);
        if (lane == 0 && k == 0) l = halo;
        if (lane == 31 && k == QPL - 1) r = halo;
        if (q >= nq) continue;  // no break: every lane must reach every shuffle
        const int qi = static_cast<int>(q);
        if (qi >= 1 && 4LL * qi + 8 <= n) {
            du4[qi] = deriv8_quad(l, c[k], r, inv_h);
        } else {
            // First quad, or a quad whose +4 neighbours run past the end: periodic wrap, element by element.
            float4 o;
            o.x = deriv8_wrap(n, u, 4 * qi + 0, inv_h);
            o.y = deriv8_wrap(n, u, 4 * qi + 1, inv_h);
            o.z = deriv8_wrap(n, u, 4 * qi + 2, inv_h);
            o.w = deriv8_wrap(n, u, 4 * qi + 3, inv_h);
            du4[qi] = o;
        }
    }
}

// Fallback for buffers that are not 16-byte aligned (cudaMalloc buffers always are).
__global__ void deriv8_scalar(int n, const float* __restrict__ u, float inv_h, float* __restrict__ du) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) du[i] = deriv8_wrap(n, u, i, inv_h);
}

void deriv8_periodic(int n, const float* u, float inv_h, float* du) {
    if (n <= 0) return;
    if (((reinterpret_cast<std::uintptr_t>(u) | reinterpret_cast<std::uintptr_t>(du)) & 15u) != 0) {
        deriv8_scalar<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(n, u, inv_h, du);
        return;
    }
    const long long nq = n / 4;
    const long long warps = (nq + WARP_QUADS - 1) / WARP_QUADS;
    const long long blocks = (warps + BLOCK / 32 - 1) / (BLOCK / 32);
    deriv8_quads<<<static_cast<unsigned>(blocks > 0 ? blocks : 1), BLOCK>>>(n, u, inv_h, du);
}
