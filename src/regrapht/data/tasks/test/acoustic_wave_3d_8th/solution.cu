// steps: vectorized_access, register_tiling
// naive.cu runs at 77% of the memory floor on an H100: its 25 loads per cell fetch each u value about
// nine times from L2 (the z neighbours of a cell sit in planes other blocks run), which is what bounds it.
// Here a thread owns a float4 of four x-consecutive cells of one row (vectorized_access: 16-byte loads
// and stores, a quarter of the load instructions) and marches them through a chunk of ZCHUNK planes
// holding the nine z neighbours in a register queue (register_tiling): u crosses L2 about once per
// cell plus the in-plane halo, which L1 serves. The queue's next plane and the streamed u_prev and
// vel2 are loaded one plane ahead of their use, so each thread has a plane of DRAM requests in flight
// while it computes.
#include <cstdint>

namespace {

constexpr int R = 4;
constexpr float C0 = -205.0f / 72.0f, C1 = 8.0f / 5.0f, C2 = -1.0f / 5.0f, C3 = 8.0f / 315.0f,
                C4 = -1.0f / 560.0f;

constexpr int TX = 16;  // float4 columns per block row (96 = 6 x 16 at the bench size)
constexpr int BY = 16;  // rows per block
constexpr int ZCHUNK = 32;  // planes marched per block (each chunk reloads 2R halo planes)

__device__ __forceinline__ float comp(const float4& v, int k) {
    return k == 0 ? v.x : (k == 1 ? v.y : (k == 2 ? v.z : v.w));
}

// nxv = nx / 4 float4 groups per row. Group g covers x = 4g .. 4g+3; with nx % 4 == 0 a group is
// either entirely inside the x border (g == 0 or g == nxv-1, since R == 4) or entirely interior.
__global__ void wave8_vec4(int nz, int ny, int nxv, const float4* u, const float4* u_prev, const float4* vel2,
                           float4* u_next) {
    const int g = blockIdx.x * TX + threadIdx.x;
    const int y = blockIdx.y * BY + threadIdx.y;
    const int z0 = blockIdx.z * ZCHUNK;
    const int z1 = min(z0 + ZCHUNK, nz);
    const bool valid = g < nxv && y < ny;
    const bool yin = valid && y >= R && y < ny - R;    // rows whose centre values are needed
    const bool xyin = yin && g >= 1 && g <= nxv - 2;  // columns that produce non-zero output
    const long long row = static_cast<long long>(nxv);
    const long long plane = static_cast<long long>(ny) * nxv;
    const long long col = static_cast<long long>(y) * nxv + g;

    // q[k] = u at plane z - R + k of this column; q[2R+1] is the plane after next, loaded one
    // iteration early, and pv/vv are the streamed inputs of the current plane, also loaded one plane ahead.
    const float4 zero4 = make_float4(0.f, 0.f, 0.f, 0.f);
    float4 q[2 * R + 2];
    for (int k = 0; k < 2 * R + 2; ++k) {
        const int zz = z0 - R + k;
        q[k] = (yin && zz >= 0 && zz < nz) ? u[zz * plane + col] : zero4;
    }
    float4 pv = zero4, vv = zero4;
    if (xyin && z0 >= R && z0 < nz - R) {
        pv = u_prev[z0 * plane + col];
        vv = vel2[z0 * plane + col];
    }

    for (int z = z0; z < z1; ++z) {
        const long long i = z * plane + col;
        const bool active = xyin && z >= R && z < nz - R;
        // what the next planes need: the queue entry R+2 planes ahead (first used two planes on) and the next pv/vv
        const int zq = z + R + 2;
        const float4 qn = (yin && zq < nz && z + 2 < z1) ? u[zq * plane + col] : zero4;
        const bool next_active = xyin && z + 1 < z1 && z + 1 >= R && z + 1 < nz - R;
        float4 pvn = zero4, vvn = zero4;
        if (next_active) {
            pvn = u_prev[i + plane];
            vvn = vel2[i + plane];
        }
        if (active) {
            // x halo: the whole float4 on either side (interior groups have both)
            const float4 lft = u[i - 1];
            const float4 rgt = u[i + 1];
            float4 ym[R], yp[R];
            for (int r = 1; r <= R; ++r) {
                ym[r - 1] = u[i - r * row];
                yp[r - 1] = u[i + r * row];
            }
            const float w[12] = {lft.x, lft.y, lft.z, lft.w, q[R].x, q[R].y, q[R].z, q[R].w,
                                 rgt.x, rgt.y, rgt.z, rgt.w};
            float out[4];
            for (int k = 0; k < 4; ++k) {
                // the naive port's order of the sums, so they round alike
                const float c = w[4 + k];
                float lap = 3.0f * C0 * c;
                lap += C1 * ((w[4 + k - 1] + w[4 + k + 1]) + (comp(ym[0], k) + comp(yp[0], k)) +
                             (comp(q[R - 1], k) + comp(q[R + 1], k)));
                lap += C2 * ((w[4 + k - 2] + w[4 + k + 2]) + (comp(ym[1], k) + comp(yp[1], k)) +
                             (comp(q[R - 2], k) + comp(q[R + 2], k)));
                lap += C3 * ((w[4 + k - 3] + w[4 + k + 3]) + (comp(ym[2], k) + comp(yp[2], k)) +
                             (comp(q[R - 3], k) + comp(q[R + 3], k)));
                lap += C4 * ((w[4 + k - 4] + w[4 + k + 4]) + (comp(ym[3], k) + comp(yp[3], k)) +
                             (comp(q[R - 4], k) + comp(q[R + 4], k)));
                out[k] = 2.0f * c - comp(pv, k) + comp(vv, k) * lap;
            }
            u_next[i] = make_float4(out[0], out[1], out[2], out[3]);
        } else if (valid) {
            u_next[i] = zero4;
        }
        // advance the queue by one plane
        for (int k = 0; k < 2 * R + 1; ++k) q[k] = q[k + 1];
        q[2 * R + 1] = qn;
        pv = pvn;
        vv = vvn;
    }
}

// Fallback for nx % 4 != 0 or buffers that are not 16-byte aligned: naive.cu's thread per cell.
__global__ void wave8_scalar(int nz, int ny, int nx, const float* u, const float* u_prev, const float* vel2,
                             float* u_next) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    const int z = blockIdx.z;
    if (x >= nx || y >= ny || z >= nz) return;
    const long long plane = static_cast<long long>(ny) * nx;
    const long long i = z * plane + static_cast<long long>(y) * nx + x;
    if (x < R || y < R || z < R || x >= nx - R || y >= ny - R || z >= nz - R) {
        u_next[i] = 0.0f;
        return;
    }
    const float c[R + 1] = {C0, C1, C2, C3, C4};
    float lap = 3.0f * C0 * u[i];
    for (int r = 1; r <= R; ++r) {
        const long long dy = static_cast<long long>(r) * nx, dz = r * plane;
        lap += c[r] * ((u[i - r] + u[i + r]) + (u[i - dy] + u[i + dy]) + (u[i - dz] + u[i + dz]));
    }
    u_next[i] = 2.0f * u[i] - u_prev[i] + vel2[i] * lap;
}

bool aligned16(const void* p) { return (reinterpret_cast<std::uintptr_t>(p) & 15u) == 0; }

}  // namespace

void acoustic_wave_3d_8th(int nz, int ny, int nx, const float* u, const float* u_prev, const float* vel2,
                          float* u_next) {
    if (nz <= 0 || ny <= 0 || nx <= 0) return;
    if (nx % 4 == 0 && aligned16(u) && aligned16(u_prev) && aligned16(vel2) && aligned16(u_next)) {
        const int nxv = nx / 4;
        dim3 block(TX, BY);
        dim3 grid((nxv + TX - 1) / TX, (ny + BY - 1) / BY, (nz + ZCHUNK - 1) / ZCHUNK);
        wave8_vec4<<<grid, block>>>(nz, ny, nxv, reinterpret_cast<const float4*>(u),
                                    reinterpret_cast<const float4*>(u_prev), reinterpret_cast<const float4*>(vel2),
                                    reinterpret_cast<float4*>(u_next));
    } else {
        dim3 block(32, 8);
        dim3 grid((nx + 31) / 32, (ny + 7) / 8, nz);
        wave8_scalar<<<grid, block>>>(nz, ny, nx, u, u_prev, vel2, u_next);
    }
}
