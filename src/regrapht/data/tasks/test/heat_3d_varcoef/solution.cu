// steps: work_decomposition, vectorized_access, register_tiling, warp_shuffle_reduction, launch_config_tuning
// Each thread owns 4 consecutive x cells (one float4 of u and of kappa) and marches through a z chunk,
// keeping planes z-1, z, z+1 in registers (the next plane is prefetched one step ahead), so u and
// kappa leave DRAM about once. x neighbours come from the adjacent lanes by shuffles, y neighbours are
// L1 hits; the block width (16 or 32 float4) and the z chunk are chosen so no lanes or waves sit idle.
#include <cstdint>

namespace {

constexpr int THREADS = 256;
constexpr int ZMAX = 96;

__device__ __forceinline__ float flux_term(float kc, float kj, float uj, float c) {
    return 0.5f * (kc + kj) * (uj - c);
}

// nxv = nx / 4 float4 groups per row; TX float4 groups per block row, THREADS / TX rows per block.
template <int TX>
__global__ void __launch_bounds__(THREADS) heat_vec4(int nz, int ny, int nxv, int zchunk,
                                                    const float4* __restrict__ u, const float4* __restrict__ kappa,
                                                    float r, float4* __restrict__ u_new) {
    constexpr int BY = THREADS / TX;
    const int lane = threadIdx.x;  // lane within the row segment (shuffle width TX)
    const int g = blockIdx.x * TX + lane;
    const int y = blockIdx.y * BY + threadIdx.y;
    const int z0 = blockIdx.z * zchunk;
    const int z1 = min(z0 + zchunk, nz);
    const int nx = 4 * nxv;
    const bool valid = g < nxv && y < ny;
    const bool yin = valid && y >= 1 && y < ny - 1;
    const long long row = static_cast<long long>(nxv);
    const long long plane = static_cast<long long>(ny) * nxv;
    const long long col = static_cast<long long>(y) * nxv + g;
    const float* us = reinterpret_cast<const float*>(u);
    const float* ks = reinterpret_cast<const float*>(kappa);
    const float4 zero4 = make_float4(0.f, 0.f, 0.f, 0.f);

    // planes z-1, z, z+1 of this column (u always, kappa only where a flux is computed)
    float4 um = zero4, uc = zero4, up = zero4, km = zero4, kc = zero4, kp = zero4;
    if (valid) {
        if (z0 >= 1) um = __ldg(u + (z0 - 1) * plane + col);
        uc = __ldg(u + z0 * plane + col);
        if (z0 + 1 < nz) up = __ldg(u + (z0 + 1) * plane + col);
    }
    if (yin) {
        if (z0 >= 1) km = __ldg(kappa + (z0 - 1) * plane + col);
        kc = __ldg(kappa + z0 * plane + col);
        if (z0 + 1 < nz) kp = __ldg(kappa + (z0 + 1) * plane + col);
    }

    for (int z = z0; z < z1; ++z) {
        const long long i = z * plane + col;
        const bool active = yin && z >= 1 && z < nz - 1;
        // prefetch plane z+2 for the next step
        float4 un = zero4, kn = zero4;
        if (z + 1 < z1 && z + 2 < nz) {
            if (valid) un = __ldg(u + i + 2 * plane);
            if (yin) kn = __ldg(kappa + i + 2 * plane);
        }
        // x neighbours of the group: last cell of the lane to the left, first cell of the lane to the right
        float uL = __shfl_up_sync(0xffffffffu, uc.w, 1, TX);
        float kL = __shfl_up_sync(0xffffffffu, kc.w, 1, TX);
        float uR = __shfl_down_sync(0xffffffffu, uc.x, 1, TX);
        float kR = __shfl_down_sync(0xffffffffu, kc.x, 1, TX);
        if (active && lane == 0 && g >= 1) {
            uL = __ldg(us + 4 * i - 1);
            kL = __ldg(ks + 4 * i - 1);
        }
        if (active && lane == TX - 1 && g + 1 < nxv) {
            uR = __ldg(us + 4 * i + 4);
            kR = __ldg(ks + 4 * i + 4);
        }
        if (active) {
            const float4 uym = __ldg(u + i - row), uyp = __ldg(u + i + row);
            const float4 kym = __ldg(kappa + i - row), kyp = __ldg(kappa + i + row);
            const float uw[6] = {uL, uc.x, uc.y, uc.z, uc.w, uR};
            const float kw[6] = {kL, kc.x, kc.y, kc.z, kc.w, kR};
            const float uym_[4] = {uym.x, uym.y, uym.z, uym.w}, uyp_[4] = {uyp.x, uyp.y, uyp.z, uyp.w};
            const float kym_[4] = {kym.x, kym.y, kym.z, kym.w}, kyp_[4] = {kyp.x, kyp.y, kyp.z, kyp.w};
            const float um_[4] = {um.x, um.y, um.z, um.w}, up_[4] = {up.x, up.y, up.z, up.w};
            const float km_[4] = {km.x, km.y, km.z, km.w}, kp_[4] = {kp.x, kp.y, kp.z, kp.w};
            float out[4];
#pragma unroll
            for (int k = 0; k < 4; ++k) {
                const float c = uw[k + 1], kk = kw[k + 1];
                float flux = 0.0f;
                flux += flux_term(kk, kw[k], uw[k], c);
                flux += flux_term(kk, kw[k + 2], uw[k + 2], c);
                flux += flux_term(kk, kym_[k], uym_[k], c);
                flux += flux_term(kk, kyp_[k], uyp_[k], c);
                flux += flux_term(kk, km_[k], um_[k], c);
                flux += flux_term(kk, kp_[k], up_[k], c);
                out[k] = c + r * flux;
            }
            // the x faces of the grid keep their value
            if (g == 0) out[0] = uc.x;
            if (4 * g + 3 == nx - 1) out[3] = uc.w;
            __stcs(u_new + i, make_float4(out[0], out[1], out[2], out[3]));
        } else if (valid) {
            __stcs(u_new + i, uc);
        }
        um = uc; uc = up; up = un;
        km = kc; kc = kp; kp = kn;
    }
}

// Fallback for nx % 4 != 0 or buffers that are not 16-byte aligned: one thread per cell.
__global__ void __launch_bounds__(256) heat_scalar(int nz, int ny, int nx, const float* __restrict__ u,
                                                  const float* __restrict__ kappa, float r,
                                                  float* __restrict__ u_new) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    const int z = blockIdx.z;
    if (x >= nx || y >= ny || z >= nz) return;
    const long long plane = static_cast<long long>(ny) * nx;
    const long long i = z * plane + static_cast<long long>(y) * nx + x;
    const float c = __ldg(u + i);
    if (x == 0 || y == 0 || z == 0 || x == nx - 1 || y == ny - 1 || z == nz - 1) {
        u_new[i] = c;
        return;
    }
    const long long offsets[6] = {-1, 1, -static_cast<long long>(nx), nx, -plane, plane};
    const float kc = __ldg(kappa + i);
    float flux = 0.0f;
#pragma unroll
    for (int d = 0; d < 6; ++d) {
        const long long j = i + offsets[d];
        flux += flux_term(kc, __ldg(kappa + j), __ldg(u + j), c);
    }
    u_new[i] = c + r * flux;
}

bool aligned16(const void* p) { return (reinterpret_cast<std::uintptr_t>(p) & 15u) == 0; }

// Blocks the whole GPU holds at once for one kernel instance (queried once per process and width).
template <int TX>
int resident_blocks() {
    static int cached = 0;
    if (cached == 0) {
        int dev = 0, sms = 0, per_sm = 0;
        cudaGetDevice(&dev);
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, heat_vec4<TX>, THREADS, 0);
        cached = max(1, sms * per_sm);
    }
    return cached;
}

// z chunk length: minimise (number of full waves of blocks) x (planes per block + warm-up).
int pick_zchunk(int nz, long long columns, int resident) {
    int best = 1;
    long long best_cost = -1;
    for (int zc = 1; zc <= min(nz, ZMAX); ++zc) {
        const long long chunks = (nz + zc - 1) / zc;
        const long long waves = (columns * chunks + resident - 1) / resident;
        const long long cost = waves * (zc + 2);
        if (best_cost < 0 || cost < best_cost) {
            best_cost = cost;
            best = zc;
        }
    }
    return best;
}

template <int TX>
void launch_vec4(int nz, int ny, int nxv, const float* u, const float* kappa, float r, float* u_new) {
    constexpr int BY = THREADS / TX;
    const long long columns = static_cast<long long>((nxv + TX - 1) / TX) * ((ny + BY - 1) / BY);
    const int zchunk = pick_zchunk(nz, columns, resident_blocks<TX>());
    dim3 block(TX, BY);
    dim3 grid((nxv + TX - 1) / TX, (ny + BY - 1) / BY, (nz + zchunk - 1) / zchunk);
    heat_vec4<TX><<<grid, block>>>(nz, ny, nxv, zchunk, reinterpret_cast<const float4*>(u),
                                   reinterpret_cast<const float4*>(kappa), r, reinterpret_cast<float4*>(u_new));
}

}  // namespace

void heat_3d_varcoef(int nz, int ny, int nx, const float* u, const float* kappa, float r, float* u_new) {
    if (nz <= 0 || ny <= 0 || nx <= 0) return;
    if (nx % 4 == 0 && aligned16(u) && aligned16(kappa) && aligned16(u_new)) {
        const int nxv = nx / 4;
        // row segments of 16 or 32 float4: take the one that leaves fewer idle lanes
        const int idle32 = (nxv + 31) / 32 * 32 - nxv, idle16 = (nxv + 15) / 16 * 16 - nxv;
        if (idle16 < idle32)
            launch_vec4<16>(nz, ny, nxv, u, kappa, r, u_new);
        else
            launch_vec4<32>(nz, ny, nxv, u, kappa, r, u_new);
    } else {
        dim3 block(32, 8);
        dim3 grid((nx + 31) / 32, (ny + 7) / 8, nz);
        heat_scalar<<<grid, block>>>(nz, ny, nx, u, kappa, r, u_new);
    }
}
