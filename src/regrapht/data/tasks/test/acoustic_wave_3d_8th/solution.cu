// steps: work_decomposition, register_tiling
// The naive port already runs at three quarters of the memory floor on an H100 (L1 and L2 serve the
// 25-point star's reuse), so the task is easy by the measured-tier rule; what is left is the load
// traffic through the caches. Each thread owns one (x, y) column and marches through ZCHUNK planes
// with a register queue of the nine u values at z-4 .. z+4: per cell it loads one new u plane and
// the 16 in-plane neighbours (L1 hits, as in the naive port) instead of 25 u values.
constexpr int R = 4;  // the stencil radius
#define ZCHUNK 32
#define BX 32
#define BY 8

__global__ void __launch_bounds__(BX * BY) wave8_zmarch(int nz, int ny, int nx, const float* u, const float* u_prev,
                                                        const float* vel2, float* u_next) {
    const float c1 = 8.0f / 5.0f, c2 = -1.0f / 5.0f, c3 = 8.0f / 315.0f, c4 = -1.0f / 560.0f;
    const float c0x3 = 3.0f * (-205.0f / 72.0f);
    const int x = blockIdx.x * BX + threadIdx.x;
    const int y = blockIdx.y * BY + threadIdx.y;
    if (x >= nx || y >= ny) return;
    const int z0 = blockIdx.z * ZCHUNK, z1 = min(z0 + ZCHUNK, nz);
    const long long plane = static_cast<long long>(ny) * nx;
    const long long col = static_cast<long long>(y) * nx + x;
    if (x < R || y < R || x >= nx - R || y >= ny - R) {  // a border column is zero at every z
        for (int z = z0; z < z1; ++z) u_next[z * plane + col] = 0.0f;
        return;
    }
    const long long dy1 = nx, dy2 = 2LL * nx, dy3 = 3LL * nx, dy4 = 4LL * nx;

    // the queue: qk holds u at plane z - 4 + k (zero outside the grid, never read there)
    float q0 = 0.0f, q1 = 0.0f, q2 = 0.0f, q3 = 0.0f, q4 = 0.0f, q5 = 0.0f, q6 = 0.0f, q7 = 0.0f, q8 = 0.0f;
    if (z0 - 4 >= 0) q0 = u[(z0 - 4) * plane + col];
    if (z0 - 3 >= 0) q1 = u[(z0 - 3) * plane + col];
    if (z0 - 2 >= 0) q2 = u[(z0 - 2) * plane + col];
    if (z0 - 1 >= 0) q3 = u[(z0 - 1) * plane + col];
    q4 = u[z0 * plane + col];
    if (z0 + 1 < nz) q5 = u[(z0 + 1) * plane + col];
    if (z0 + 2 < nz) q6 = u[(z0 + 2) * plane + col];
    if (z0 + 3 < nz) q7 = u[(z0 + 3) * plane + col];
    if (z0 + 4 < nz) q8 = u[(z0 + 4) * plane + col];

    for (int z = z0; z < z1; ++z) {
        const long long i = z * plane + col;
        if (z < R || z >= nz - R) {
            u_next[i] = 0.0f;
        } else {
            // the naive port's order of the sums, so they round alike
            float lap = c0x3 * q4;
            lap += c1 * ((u[i - 1] + u[i + 1]) + (u[i - dy1] + u[i + dy1]) + (q3 + q5));
            lap += c2 * ((u[i - 2] + u[i + 2]) + (u[i - dy2] + u[i + dy2]) + (q2 + q6));
            lap += c3 * ((u[i - 3] + u[i + 3]) + (u[i - dy3] + u[i + dy3]) + (q1 + q7));
            lap += c4 * ((u[i - 4] + u[i + 4]) + (u[i - dy4] + u[i + dy4]) + (q0 + q8));
            u_next[i] = 2.0f * q4 - u_prev[i] + vel2[i] * lap;
        }
        q0 = q1;
        q1 = q2;
        q2 = q3;
        q3 = q4;
        q4 = q5;
        q5 = q6;
        q6 = q7;
        q7 = q8;
        q8 = z + 5 < nz && z + 1 < z1 ? u[i + 5 * plane] : 0.0f;  // take in plane z+5
    }
}

void acoustic_wave_3d_8th(int nz, int ny, int nx, const float* u, const float* u_prev, const float* vel2,
                          float* u_next) {
    if (nz <= 0 || ny <= 0 || nx <= 0) return;
    dim3 block(BX, BY);
    dim3 grid((nx + BX - 1) / BX, (ny + BY - 1) / BY, (nz + ZCHUNK - 1) / ZCHUNK);
    wave8_zmarch<<<grid, block>>>(nz, ny, nx, u, u_prev, vel2, u_next);
}
