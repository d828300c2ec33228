// steps: parallelize, work_decomposition, register_tiling, shared_memory_tiling, read_only_cache, loop_unrolling, launch_config_tuning
// 2.5D blocking for a radius-4 star stencil. A 32x16 block owns an x/y column of the grid and marches
// through a chunk of z: each thread keeps its 9 z-neighbours (z-4 .. z+4) in a register queue that
// shifts by one per plane (one new DRAM load per plane), the current plane is staged with a 4-cell
// x/y halo in shared memory for the in-plane neighbours, the coefficients are compile-time constants,
// all radius loops are unrolled, and the block shape / chunk length are tuned for occupancy.
constexpr int R = 4;
constexpr int BX = 32;
constexpr int BY = 16;
constexpr int ZCHUNK = 64;

__global__ void __launch_bounds__(BX * BY, 2) wave8_march(int nz, int ny, int nx, const float* __restrict__ u,
                                                          const float* __restrict__ u_prev,
                                                          const float* __restrict__ vel2, float* __restrict__ u_next) {
    constexpr float c0 = -205.0f / 72.0f, c1 = 8.0f / 5.0f, c2 = -1.0f / 5.0f, c3 = 8.0f / 315.0f,
                    c4 = -1.0f / 560.0f;
    __shared__ float s[BY + 2 * R][BX + 2 * R];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int x0 = blockIdx.x * BX, y0 = blockIdx.y * BY;
    const int x = x0 + tx, y = y0 + ty;
    const int z0 = blockIdx.z * ZCHUNK, z1 = min(z0 + ZCHUNK, nz);
    const bool inside = x < nx && y < ny;
    const long long plane = static_cast<long long>(ny) * nx;
    const long long col = static_cast<long long>(y) * nx + x;

    float q[2 * R + 1];  // q[k] = u at plane z - R + k
#pragma unroll
    for (int k = 0; k < 2 * R + 1; ++k) {
        const int zz = z0 - R + k;
        q[k] = (inside && zz >= 0 && zz < nz) ? __ldg(u + zz * plane + col) : 0.0f;
    }
    for (int z = z0; z < z1; ++z) {
        const long long base = z * plane;
        __syncthreads();  // everyone is done with the previous plane
        if (inside) s[ty + R][tx + R] = q[R];
        if (tx < R && y < ny) {
            const int gl = x0 - R + tx, gr = x0 + BX + tx;
            if (gl >= 0 && gl < nx) s[ty + R][tx] = __ldg(u + base + static_cast<long long>(y) * nx + gl);
            if (gr < nx) s[ty + R][BX + R + tx] = __ldg(u + base + static_cast<long long>(y) * nx + gr);
        }
        if (ty < R && x < nx) {
            const int gt = y0 - R + ty, gb = y0 + BY + ty;
            if (gt >= 0 && gt < ny) s[ty][tx + R] = __ldg(u + base + static_cast<long long>(gt) * nx + x);
            if (gb < ny) s[BY + R + ty][tx + R] = __ldg(u + base + static_cast<long long>(gb) * nx + x);
        }
        __syncthreads();
        if (inside) {
            const long long i = base + col;
            if (x < R || y < R || z < R || x >= nx - R || y >= ny - R || z >= nz - R) {
                u_next[i] = 0.0f;
            } else {
                const float center = q[R];
                float lap = 3.0f * c0 * center;
                lap += c1 * ((s[ty + R][tx + R - 1] + s[ty + R][tx + R + 1]) + (s[ty + R - 1][tx + R] + s[ty + R + 1][tx + R]) + (q[R - 1] + q[R + 1]));
                lap += c2 * ((s[ty + R][tx + R - 2] + s[ty + R][tx + R + 2]) + (s[ty + R - 2][tx + R] + s[ty + R + 2][tx + R]) + (q[R - 2] + q[R + 2]));
                lap += c3 * ((s[ty + R][tx + R - 3] + s[ty + R][tx + R + 3]) + (s[ty + R - 3][tx + R] + s[ty + R + 3][tx + R]) + (q[R - 3] + q[R + 3]));
                lap += c4 * ((s[ty + R][tx + R - 4] + s[ty + R][tx + R + 4]) + (s[ty + R - 4][tx + R] + s[ty + R + 4][tx + R]) + (q[R - 4] + q[R + 4]));
                u_next[i] = 2.0f * center - __ldg(u_prev + i) + __ldg(vel2 + i) * lap;
            }
        }
        // advance the register queue by one plane
#pragma unroll
        for (int k = 0; k < 2 * R; ++k) q[k] = q[k + 1];
        const int zn = z + R + 1;
        q[2 * R] = (inside && zn < nz) ? __ldg(u + zn * plane + col) : 0.0f;
    }
}

void acoustic_wave_3d_8th(int nz, int ny, int nx, const float* u, const float* u_prev, const float* vel2,
                          float* u_next) {
    if (nz <= 0 || ny <= 0 || nx <= 0) return;
    dim3 block(BX, BY);
    dim3 grid((nx + BX - 1) / BX, (ny + BY - 1) / BY, (nz + ZCHUNK - 1) / ZCHUNK);
    wave8_march<<<grid, block>>>(nz, ny, nx, u, u_prev, vel2, u_next);
}
