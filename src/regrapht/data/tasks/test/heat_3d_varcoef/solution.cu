// steps: work_decomposition, register_tiling
// The naive port already runs near the memory floor on an H100 (u and kappa cross DRAM about once,
// L1 and L2 serve the neighbour reuse), so the task is easy by the measured-tier rule; what is left
// is the load traffic through the caches. Each thread owns one (x, y) column and marches through
// ZCHUNK planes with a register queue of u and kappa at z-1, z, z+1, taking in plane z+2 as it
// moves: per cell 10 loads (the new plane's two and the eight in-plane neighbours, still cache hits)
// instead of the naive port's 14.
#define ZCHUNK 16
#define BX 32
#define BY 8

__global__ void __launch_bounds__(BX * BY) heat_zmarch(int nz, int ny, int nx, const float* u, const float* kappa,
                                                       float r, float* u_new) {
    const int x = blockIdx.x * BX + threadIdx.x;
    const int y = blockIdx.y * BY + threadIdx.y;
    if (x >= nx || y >= ny) return;
    const int z0 = blockIdx.z * ZCHUNK, z1 = min(z0 + ZCHUNK, nz);
    const long long plane = static_cast<long long>(ny) * nx;
    const long long col = static_cast<long long>(y) * nx + x;
    const bool edge = x == 0 || y == 0 || x == nx - 1 || y == ny - 1;

    // the queue: planes z-1 (m), z (c), z+1 (p) of u, and of kappa where a flux is computed
    float um = 0.0f, uc = u[z0 * plane + col], up = 0.0f, km = 0.0f, kc = 0.0f, kp = 0.0f;
    if (z0 >= 1) um = u[(z0 - 1) * plane + col];
    if (z0 + 1 < nz) up = u[(z0 + 1) * plane + col];
    if (!edge) {
        kc = kappa[z0 * plane + col];
        if (z0 >= 1) km = kappa[(z0 - 1) * plane + col];
        if (z0 + 1 < nz) kp = kappa[(z0 + 1) * plane + col];
    }
    for (int z = z0; z < z1; ++z) {
        const long long i = z * plane + col;
        if (edge || z == 0 || z == nz - 1) {
            u_new[i] = uc;
        } else {
            const float uw = u[i - 1], ue = u[i + 1], us = u[i - nx], un = u[i + nx];
            const float kw = kappa[i - 1], ke = kappa[i + 1], ks = kappa[i - nx], kn = kappa[i + nx];
            // the naive port's order of the six faces, so the sums round alike
            float flux = 0.0f;
            flux += 0.5f * (kc + kw) * (uw - uc);
            flux += 0.5f * (kc + ke) * (ue - uc);
            flux += 0.5f * (kc + ks) * (us - uc);
            flux += 0.5f * (kc + kn) * (un - uc);
            flux += 0.5f * (kc + km) * (um - uc);
            flux += 0.5f * (kc + kp) * (up - uc);
            u_new[i] = uc + r * flux;
        }
        // rotate the queue and take in plane z+2
        const bool next = z + 2 < nz && z + 1 < z1;
        um = uc;
        uc = up;
        up = next ? u[i + 2 * plane] : 0.0f;
        km = kc;
        kc = kp;
        kp = next && !edge ? kappa[i + 2 * plane] : 0.0f;
    }
}

void heat_3d_varcoef(int nz, int ny, int nx, const float* u, const float* kappa, float r, float* u_new) {
    if (nz <= 0 || ny <= 0 || nx <= 0) return;
    dim3 block(BX, BY);
    dim3 grid((nx + BX - 1) / BX, (ny + BY - 1) / BY, (nz + ZCHUNK - 1) / ZCHUNK);
    heat_zmarch<<<grid, block>>>(nz, ny, nx, u, kappa, r, u_new);
}
