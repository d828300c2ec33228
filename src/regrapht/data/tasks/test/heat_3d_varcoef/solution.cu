// steps: parallelize, work_decomposition, register_tiling, shared_memory_tiling, read_only_cache
// 2.5D blocking: a 32x8 block owns a column of the grid and marches through a chunk of z. The cells
// above and below the current plane stay in registers (a 3-deep queue per thread), the current plane
// of u and kappa is staged with its x/y halo in shared memory, so every value is read from DRAM about
// once instead of seven times.
constexpr int BX = 32;
constexpr int BY = 8;
constexpr int ZCHUNK = 64;

__global__ void __launch_bounds__(BX * BY) heat_march(int nz, int ny, int nx, const float* __restrict__ u,
                                                       const float* __restrict__ kappa, float r,
                                                       float* __restrict__ u_new) {
    __shared__ float su[BY + 2][BX + 2];
    __shared__ float sk[BY + 2][BX + 2];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int x = blockIdx.x * BX + tx, y = blockIdx.y * BY + ty;
    const int z0 = blockIdx.z * ZCHUNK, z1 = min(z0 + ZCHUNK, nz);
    const bool inside = x < nx && y < ny;
    const long long plane = static_cast<long long>(ny) * nx;
    const long long col = static_cast<long long>(y) * nx + x;

    float u_prev = 0.0f, k_prev = 0.0f, u_cur = 0.0f, k_cur = 0.0f, u_next = 0.0f, k_next = 0.0f;
    if (inside) {
        if (z0 > 0) {
            u_prev = __ldg(u + (z0 - 1) * plane + col);
            k_prev = __ldg(kappa + (z0 - 1) * plane + col);
        }
        u_cur = __ldg(u + z0 * plane + col);
        k_cur = __ldg(kappa + z0 * plane + col);
    }
    for (int z = z0; z < z1; ++z) {
        const long long base = z * plane;
        if (inside && z + 1 < nz) {
            u_next = __ldg(u + base + plane + col);
            k_next = __ldg(kappa + base + plane + col);
        }
        __syncthreads();  // the previous plane is no longer read
        if (inside) {
            su[ty + 1][tx + 1] = u_cur;
            sk[ty + 1][tx + 1] = k_cur;
        }
        if (tx == 0 && x > 0 && y < ny) {
            su[ty + 1][0] = __ldg(u + base + col - 1);
            sk[ty + 1][0] = __ldg(kappa + base + col - 1);
        }
        if (tx == BX - 1 && x + 1 < nx && y < ny) {
            su[ty + 1][BX + 1] = __ldg(u + base + col + 1);
            sk[ty + 1][BX + 1] = __ldg(kappa + base + col + 1);
        }
        if (ty == 0 && y > 0 && x < nx) {
            su[0][tx + 1] = __ldg(u + base + col - nx);
            sk[0][tx + 1] = __ldg(kappa + base + col - nx);
        }
        if (ty == BY - 1 && y + 1 < ny && x < nx) {
            su[BY + 1][tx + 1] = __ldg(u + base + col + nx);
            sk[BY + 1][tx + 1] = __ldg(kappa + base + col + nx);
        }
        __syncthreads();
        if (inside) {
            const long long i = base + col;
            if (x == 0 || y == 0 || z == 0 || x == nx - 1 || y == ny - 1 || z == nz - 1) {
                u_new[i] = u_cur;
            } else {
                const float c = u_cur, kc = k_cur;
                float flux = 0.0f;
                flux += 0.5f * (kc + sk[ty + 1][tx]) * (su[ty + 1][tx] - c);
                flux += 0.5f * (kc + sk[ty + 1][tx + 2]) * (su[ty + 1][tx + 2] - c);
                flux += 0.5f * (kc + sk[ty][tx + 1]) * (su[ty][tx + 1] - c);
                flux += 0.5f * (kc + sk[ty + 2][tx + 1]) * (su[ty + 2][tx + 1] - c);
                flux += 0.5f * (kc + k_prev) * (u_prev - c);
                flux += 0.5f * (kc + k_next) * (u_next - c);
                u_new[i] = c + r * flux;
            }
        }
        u_prev = u_cur;
        k_prev = k_cur;
        u_cur = u_next;
        k_cur = k_next;
    }
}

void heat_3d_varcoef(int nz, int ny, int nx, const float* u, const float* kappa, float r, float* u_new) {
    if (nz <= 0 || ny <= 0 || nx <= 0) return;
    dim3 block(BX, BY);
    dim3 grid((nx + BX - 1) / BX, (ny + BY - 1) / BY, (nz + ZCHUNK - 1) / ZCHUNK);
    heat_march<<<grid, block>>>(nz, ny, nx, u, kappa, r, u_new);
}
