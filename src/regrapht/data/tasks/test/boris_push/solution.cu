// steps: parallelize, memory_coalescing
// Each warp owns 32 particles: their 768 B of state and 384 B of field are contiguous, so the warp moves
// them with fully coalesced float4 loads and stores (all issued before any use) and transposes the
// stride-6 / stride-3 records through a private 1.1 KB shared-memory slice. Only __syncwarp is needed
// (no block barrier), and the record reads are bank-conflict free (float2 at stride 24 B, float at 12 B).
#include <cstdint>

constexpr int BLOCK = 256;
constexpr int WARPS = BLOCK / 32;

struct BorisCoef {
    float qm_half_dt, dt, tx, ty, tz, sx, sy, sz;
};

// One Boris step, same operation order as the reference.
__device__ __forceinline__ void boris_step(float p[6], float ex, float ey, float ez, const BorisCoef& k) {
    float vx = p[3] + k.qm_half_dt * ex;
    float vy = p[4] + k.qm_half_dt * ey;
    float vz = p[5] + k.qm_half_dt * ez;
    float px = vx + (vy * k.tz - vz * k.ty);
    float py = vy + (vz * k.tx - vx * k.tz);
    float pz = vz + (vx * k.ty - vy * k.tx);
    vx += py * k.sz - pz * k.sy;
    vy += pz * k.sx - px * k.sz;
    vz += px * k.sy - py * k.sx;
    vx += k.qm_half_dt * ex;
    vy += k.qm_half_dt * ey;
    vz += k.qm_half_dt * ez;
    p[0] += vx * k.dt;
    p[1] += vy * k.dt;
    p[2] += vz * k.dt;
    p[3] = vx;
    p[4] = vy;
    p[5] = vz;
}

// Direct per-particle update (partial last warp, or misaligned buffers).
__device__ __forceinline__ void boris_direct(long long i, float* __restrict__ state, const float* __restrict__ efield,
                                             const BorisCoef& k) {
    float* g = state + 6 * i;
    const float* e = efield + 3 * i;
    float p[6] = {g[0], g[1], g[2], g[3], g[4], g[5]};
    boris_step(p, __ldg(e), __ldg(e + 1), __ldg(e + 2), k);
#pragma unroll
    for (int j = 0; j < 6; ++j) g[j] = p[j];
}

__global__ void __launch_bounds__(BLOCK) boris_warp_staged(int n, float* __restrict__ state,
                                                            const float* __restrict__ efield, BorisCoef k) {
    __shared__ float4 s_state[WARPS][48];  // 32 particles x 6 floats
    __shared__ float4 s_e[WARPS][24];      // 32 particles x 3 floats
    const int lane = threadIdx.x & 31;
    const int wib = threadIdx.x >> 5;
    const long long first = (static_cast<long long>(blockIdx.x) * WARPS + wib) * 32;
    if (first >= n) return;  // warp-uniform
    if (first + 32 > n) {     // partial last warp: direct path
        if (first + lane < n) boris_direct(first + lane, state, efield, k);
        return;
    }
    float4* gs = reinterpret_cast<float4*>(state + 6 * first);         // 768 B aligned chunk
    const float4* ge = reinterpret_cast<const float4*>(efield + 3 * first);  // 384 B aligned chunk
    const float4 zero = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    const float4 a = gs[lane];
    const float4 b = lane < 16 ? gs[32 + lane] : zero;
    const float4 e = lane < 24 ? __ldg(ge + lane) : zero;
    s_state[wib][lane] = a;
    if (lane < 16) s_state[wib][32 + lane] = b;
    if (lane < 24) s_e[wib][lane] = e;
    __syncwarp();

    float2* rec = reinterpret_cast<float2*>(&s_state[wib][0]) + 3 * lane;
    const float* fe = reinterpret_cast<const float*>(&s_e[wib][0]) + 3 * lane;
    const float2 r0 = rec[0], r1 = rec[1], r2 = rec[2];
    float p[6] = {r0.x, r0.y, r1.x, r1.y, r2.x, r2.y};
    boris_step(p, fe[0], fe[1], fe[2], k);
    rec[0] = make_float2(p[0], p[1]);
    rec[1] = make_float2(p[2], p[3]);
    rec[2] = make_float2(p[4], p[5]);
    __syncwarp();

    gs[lane] = s_state[wib][lane];
    if (lane < 16) gs[32 + lane] = s_state[wib][32 + lane];
}

__global__ void boris_scalar(int n, float* __restrict__ state, const float* __restrict__ efield, BorisCoef k) {
    const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n) boris_direct(i, state, efield, k);
}

void boris_push(int n, float* state, const float* efield, float bx, float by, float bz, float qm_half_dt, float dt) {
    if (n <= 0) return;
    BorisCoef k;
    k.qm_half_dt = qm_half_dt;
    k.dt = dt;
    k.tx = qm_half_dt * bx;
    k.ty = qm_half_dt * by;
    k.tz = qm_half_dt * bz;
    const float scale = 2.0f / (1.0f + k.tx * k.tx + k.ty * k.ty + k.tz * k.tz);
    k.sx = scale * k.tx;
    k.sy = scale * k.ty;
    k.sz = scale * k.tz;
    if (((reinterpret_cast<std::uintptr_t>(state) | reinterpret_cast<std::uintptr_t>(efield)) & 15u) != 0) {
        boris_scalar<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(n, state, efield, k);
        return;
    }
    const long long warps = (static_cast<long long>(n) + 31) / 32;
    const long long blocks = (warps + WARPS - 1) / WARPS;
    boris_warp_staged<<<static_cast<unsigned>(blocks), BLOCK>>>(n, state, efield, k);
}
