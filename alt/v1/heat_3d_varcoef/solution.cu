// steps: vectorized_access, register_tiling
// naive.cu runs at 75% of the memory floor on an H100: its 14 scalar loads per cell fetch u and kappa
// from L2 several times over (the z neighbours sit in planes other blocks run). Here a thread owns a
// float4 of four x-consecutive cells (vectorized_access: 16-byte loads and stores of u, kappa and
// u_new, a quarter of the load instructions) and marches them through a chunk of ZCHUNK planes with
// u and kappa at z-1, z, z+1 in a register queue (register_tiling), so each crosses L2 about once per
// cell plus the in-plane halo, which L1 serves. Plane z+2 is loaded one plane ahead of its use, so a
// thread has a plane of DRAM requests in flight while it computes.
#include <cstdint>

namespace {

constexpr int TX = 16;  // float4 columns per block row (448 = 7 x 16 x 4 at the bench size)
constexpr int BY = 16;  // rows per block
constexpr int ZCHUNK = 38;  // planes per block: 40 chunks, 7840 blocks, ~20 waves at 3 a SM

// One face's flux term, in naive.cu's form.
__device__ __forceinline__ float flux_term(float kc, float kj, float uj, float c) {
    return 0.5f * (kc + kj) * (uj - c);
}

// nxv = nx / 4 float4 groups per row; group g covers x = 4g .. 4g+3.
__global__ void heat_vec4(int nz, int ny, int nxv, const float4* u, const float4* kappa, float r, float4* u_new) {
    const int g = blockIdx.x * TX + threadIdx.x;
    const int y = blockIdx.y * BY + threadIdx.y;
    const int z0 = blockIdx.z * ZCHUNK;
    const int z1 = min(z0 + ZCHUNK, nz);
    if (g >= nxv || y >= ny) return;
    const bool yin = y >= 1 && y < ny - 1;  // rows with fluxes (kappa is read only there)
    const long long row = static_cast<long long>(nxv);
    const long long plane = static_cast<long long>(ny) * nxv;
    const long long col = static_cast<long long>(y) * nxv + g;
    const float* us = reinterpret_cast<const float*>(u);
    const float* ks = reinterpret_cast<const float*>(kappa);
    const float4 zero4 = make_float4(0.f, 0.f, 0.f, 0.f);

    // the queue: planes z-1 (m), z (c), z+1 (p) of this column; kappa only on rows with fluxes
    float4 um = zero4, uc = u[z0 * plane + col], up = zero4, km = zero4, kc = zero4, kp = zero4;
    if (z0 >= 1) um = u[(z0 - 1) * plane + col];
    if (z0 + 1 < nz) up = u[(z0 + 1) * plane + col];
    if (yin) {
        kc = kappa[z0 * plane + col];
        if (z0 >= 1) km = kappa[(z0 - 1) * plane + col];
        if (z0 + 1 < nz) kp = kappa[(z0 + 1) * plane + col];
    }

    for (int z = z0; z < z1; ++z) {
        const long long i = z * plane + col;
        // plane z+2, which the queue takes in after this plane
        float4 un = zero4, kn = zero4;
        if (z + 1 < z1 && z + 2 < nz) {
            un = u[i + 2 * plane];
            if (yin) kn = kappa[i + 2 * plane];
        }
        if (yin && z >= 1 && z < nz - 1) {
            // x neighbours: the last cell of the group on the left, the first of the group on the right
            float uL = 0.0f, kL = 0.0f, uR = 0.0f, kR = 0.0f;
            if (g >= 1) {
                uL = us[4 * i - 1];
                kL = ks[4 * i - 1];
            }
            if (g + 1 < nxv) {
                uR = us[4 * i + 4];
                kR = ks[4 * i + 4];
            }
            const float4 uym = u[i - row], uyp = u[i + row];
            const float4 kym = kappa[i - row], kyp = kappa[i + row];
            const float uw[6] = {uL, uc.x, uc.y, uc.z, uc.w, uR};
            const float kw[6] = {kL, kc.x, kc.y, kc.z, kc.w, kR};
            const float uym_[4] = {uym.x, uym.y, uym.z, uym.w}, uyp_[4] = {uyp.x, uyp.y, uyp.z, uyp.w};
            const float kym_[4] = {kym.x, kym.y, kym.z, kym.w}, kyp_[4] = {kyp.x, kyp.y, kyp.z, kyp.w};
            const float um_[4] = {um.x, um.y, um.z, um.w}, up_[4] = {up.x, up.y, up.z, up.w};
            const float km_[4] = {km.x, km.y, km.z, km.w}, kp_[4] = {kp.x, kp.y, kp.z, kp.w};
            float out[4];
            for (int k = 0; k < 4; ++k) {
                // naive.cu's order of the six faces, so the sums round alike
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
            if (g == nxv - 1) out[3] = uc.w;
            u_new[i] = make_float4(out[0], out[1], out[2], out[3]);
        } else {
            u_new[i] = uc;  // a boundary row or plane keeps its value
        }
        um = uc;
        uc = up;
        up = un;
        km = kc;
        kc = kp;
        kp = kn;
    }
}

// Fallback for nx % 4 != 0 or buffers that are not 16-byte aligned: naive.cu's thread per cell.
__global__ void heat_scalar(int nz, int ny, int nx, const float* u, const float* kappa, float r, float* u_new) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    const int z = blockIdx.z;
    if (x >= nx || y >= ny || z >= nz) return;
    const long long plane = static_cast<long long>(ny) * nx;
    const long long i = z * plane + static_cast<long long>(y) * nx + x;
    const float c = u[i];
    if (x == 0 || y == 0 || z == 0 || x == nx - 1 || y == ny - 1 || z == nz - 1) {
        u_new[i] = c;
        return;
    }
    const long long offsets[6] = {-1, 1, -static_cast<long long>(nx), nx, -plane, plane};
    const float kc = kappa[i];
    float flux = 0.0f;
    for (int d = 0; d < 6; ++d) {
        const long long j = i + offsets[d];
        flux += flux_term(kc, kappa[j], u[j], c);
    }
    u_new[i] = c + r * flux;
}

bool aligned16(const void* p) { return (reinterpret_cast<std::uintptr_t>(p) & 15u) == 0; }

}  // namespace

void heat_3d_varcoef(int nz, int ny, int nx, const float* u, const float* kappa, float r, float* u_new) {
    if (nz <= 0 || ny <= 0 || nx <= 0) return;
    if (nx % 4 == 0 && aligned16(u) && aligned16(kappa) && aligned16(u_new)) {
        const int nxv = nx / 4;
        dim3 block(TX, BY);
        dim3 grid((nxv + TX - 1) / TX, (ny + BY - 1) / BY, (nz + ZCHUNK - 1) / ZCHUNK);
        heat_vec4<<<grid, block>>>(nz, ny, nxv, reinterpret_cast<const float4*>(u),
                                   reinterpret_cast<const float4*>(kappa), r, reinterpret_cast<float4*>(u_new));
    } else {
        dim3 block(32, 8);
        dim3 grid((nx + 31) / 32, (ny + 7) / 8, nz);
        heat_scalar<<<grid, block>>>(nz, ny, nx, u, kappa, r, u_new);
    }
}
