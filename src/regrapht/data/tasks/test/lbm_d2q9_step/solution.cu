// steps: parallelize, kernel_fusion, algorithmic_change, shared_memory_tiling, memory_coalescing, loop_unrolling, fast_math_intrinsics
// One fused kernel, no temporary lattice. A block owns a 32 x 8 tile of cells plus a one-cell halo
// (periodic wrap). Populations are staged into shared memory with consecutive threads on consecutive
// floats (the cell-major AoS rows are contiguous), every tile and halo cell is collided in place in
// shared memory (stride-9 access is bank-conflict free), and streaming becomes a pull from the
// neighbours' post-collision values in shared memory, written back with coalesced row stores. Halo
// cells are collided redundantly by the neighbouring blocks, which replaces the push kernel's
// scattered writes and the second pass over DRAM.
// A block has one thread per halo-tile cell (340, rounded up to 11 warps), so the collision is one
// round: with 256 threads a second round ran 84 cells with two thirds of the block idle. The
// streaming step's direction offsets come from two packed 2-bit tables in registers: the lane's
// population index q varies across a warp, and a __constant__ table read with nine distinct indices
// per warp is serialized nine ways.
constexpr int TX = 32;
constexpr int TY = 8;
constexpr int HX = TX + 2;
constexpr int HY = TY + 2;
constexpr int Q = 9;
constexpr int kThreads = (HY * HX + 31) / 32 * 32;

// e_q + 1 for q = 0..8, two bits per direction: x {1, 2, 1, 0, 1, 2, 0, 0, 2}, y {1, 1, 2, 1, 0, 2, 2, 0, 0}
constexpr unsigned kCx1 = 1u | 2u << 2 | 1u << 4 | 0u << 6 | 1u << 8 | 2u << 10 | 0u << 12 | 0u << 14 | 2u << 16;
constexpr unsigned kCy1 = 1u | 1u << 2 | 2u << 4 | 1u << 6 | 0u << 8 | 2u << 10 | 2u << 12 | 0u << 14 | 0u << 16;

// Periodic wrap of a halo coordinate g in [-1, n + TX]: two cheap corrections, a real modulo only on tiny grids.
__device__ __forceinline__ int wrap(int g, int n) {
    if (g < 0) g += n;
    if (g >= n) g -= n;
    if (g < 0 || g >= n) g = (g % n + n) % n;
    return g;
}

__global__ void __launch_bounds__(kThreads) lbm_fused(int ny, int nx, const float* __restrict__ f,
                                                     const unsigned char* __restrict__ solid, float omega,
                                                     float* __restrict__ f_out, float* __restrict__ rho,
                                                     float* __restrict__ ux, float* __restrict__ uy) {
    __shared__ float fs[HY * HX * Q];
    __shared__ unsigned char ms[HY * HX];
    const int tid = threadIdx.x;
    const int nthreads = kThreads;
    const int x0 = blockIdx.x * TX, y0 = blockIdx.y * TY;

    // 1. Stage the halo tile: each row of HX cells is (up to the periodic wrap) one contiguous run.
    for (int j = tid; j < HY * HX * Q; j += nthreads) {
        const int cl = j / Q, q = j - cl * Q;
        const int ly = cl / HX, lx = cl - ly * HX;
        const int gx = wrap(x0 - 1 + lx, nx), gy = wrap(y0 - 1 + ly, ny);
        fs[j] = f[(static_cast<long long>(gy) * nx + gx) * Q + q];
    }
    for (int cl = tid; cl < HY * HX; cl += nthreads) {
        const int ly = cl / HX, lx = cl - ly * HX;
        const int gx = wrap(x0 - 1 + lx, nx), gy = wrap(y0 - 1 + ly, ny);
        ms[cl] = solid[static_cast<long long>(gy) * nx + gx];
    }
    __syncthreads();

    // 2. Collide every staged cell in place; tile cells also write their moments.
    for (int cl = tid; cl < HY * HX; cl += nthreads) {
        float* c = fs + cl * Q;
        float v[Q];
#pragma unroll
        for (int q = 0; q < Q; ++q) v[q] = c[q];
        const float density = (((((((v[0] + v[1]) + v[2]) + v[3]) + v[4]) + v[5]) + v[6]) + v[7]) + v[8];
        const float jx = v[1] - v[3] + v[5] - v[6] - v[7] + v[8];
        const float jy = v[2] - v[4] + v[5] + v[6] - v[7] - v[8];
        const int ly = cl / HX, lx = cl - ly * HX;
        const int gx = x0 - 1 + lx, gy = y0 - 1 + ly;
        const bool own = lx >= 1 && lx <= TX && ly >= 1 && ly <= TY && gx < nx && gy < ny;
        const long long cell = static_cast<long long>(gy) * nx + gx;
        if (ms[cl]) {
            if (own) {
                rho[cell] = density;
                ux[cell] = 0.0f;
                uy[cell] = 0.0f;
            }
            c[0] = v[0];
            c[1] = v[3];
            c[2] = v[4];
            c[3] = v[1];
            c[4] = v[2];
            c[5] = v[7];
            c[6] = v[8];
            c[7] = v[5];
            c[8] = v[6];
        } else {
            const float inv_rho = __fdividef(1.0f, density);
            const float vx = jx * inv_rho, vy = jy * inv_rho;
            if (own) {
                rho[cell] = density;
                ux[cell] = vx;
                uy[cell] = vy;
            }
            const float usq15 = 1.5f * (vx * vx + vy * vy);
            const float w0 = 4.0f / 9.0f * density, w1 = 1.0f / 9.0f * density, w2 = 1.0f / 36.0f * density;
            const float eus[Q] = {0.0f, vx, vy, -vx, -vy, vx + vy, vy - vx, -vx - vy, vx - vy};
#pragma unroll
            for (int q = 0; q < Q; ++q) {
                const float eu = eus[q];
                const float wq = q == 0 ? w0 : (q < 5 ? w1 : w2);
                const float feq = wq * (1.0f + 3.0f * eu + 4.5f * eu * eu - usq15);
                c[q] = v[q] - omega * (v[q] - feq);
            }
        }
    }
    __syncthreads();

    // 3. Pull-stream: output population q of tile cell (ox, oy) comes from the cell at -e_q.
    const int row_len = TX * Q;
    for (int j = tid; j < TY * row_len; j += nthreads) {
        const int oy = j / row_len, rem = j - oy * row_len;
        const int ox = rem / Q, q = rem - ox * Q;
        const int gx = x0 + ox, gy = y0 + oy;
        if (gx >= nx || gy >= ny) continue;
        // the source cell, -e_q from (ox, oy), in halo coordinates (+1)
        const int sx = ox + 2 - (int)((kCx1 >> (2 * q)) & 3u), sy = oy + 2 - (int)((kCy1 >> (2 * q)) & 3u);
        f_out[(static_cast<long long>(gy) * nx + gx) * Q + q] = fs[(sy * HX + sx) * Q + q];
    }
}

void lbm_d2q9_step(int ny, int nx, const float* f, const unsigned char* solid, float omega, float* f_out, float* rho,
                   float* ux, float* uy) {
    if (ny <= 0 || nx <= 0) return;
    dim3 grid((nx + TX - 1) / TX, (ny + TY - 1) / TY);
    lbm_fused<<<grid, kThreads>>>(ny, nx, f, solid, omega, f_out, rho, ux, uy);
}
