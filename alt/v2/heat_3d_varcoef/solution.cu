// steps: work_decomposition, register_tiling
// naive.cu runs at 75% of the memory floor on an H100: its 14 loads per cell fetch u and kappa from
// L2 several times over (the z neighbours sit in planes other blocks run). Here a thread owns one
// (x, y) column and marches it through a chunk of ZCHUNK planes (work_decomposition) with u and kappa
// at the planes before, at and after the current one in a register queue (register_tiling): per cell
// 10 loads (the new plane's two and the eight in-plane neighbours, L1 hits) instead of 14, and u and
// kappa cross L2 about once. The queue runs two planes ahead: the plane three along is loaded after
// this one is computed and used two planes later, a whole plane's work after its load. Even chunks march up and odd
// chunks down, so two neighbouring chunks, which run at the same time, reach their shared boundary
// together and the planes both read are L2 hits for the second, not a DRAM reload (session 12's
// march of 16-plane chunks, all upward, reloaded 2 planes in 16: 8% more bytes).
#define ZCHUNK 38  // 40 chunks of 1520 planes at the bench size
#define BX 32
#define BY 8

__global__ void heat_zmarch(int nz, int ny, int nx, const float* u, const float* kappa, float r, float* u_new) {
    const int x = blockIdx.x * BX + threadIdx.x;
    const int y = blockIdx.y * BY + threadIdx.y;
    if (x >= nx || y >= ny) return;
    const int z0 = blockIdx.z * ZCHUNK, z1 = min(z0 + ZCHUNK, nz);
    const long long plane = static_cast<long long>(ny) * nx;
    const long long col = static_cast<long long>(y) * nx + x;
    const bool edge = x == 0 || y == 0 || x == nx - 1 || y == ny - 1;

    // The march: n planes from zfirst in direction dir (one plane is `step` floats along it).
    const int n = z1 - z0;
    const int dir = (blockIdx.z & 1) ? -1 : 1;
    const int zfirst = dir > 0 ? z0 : z1 - 1;
    const long long step = dir * plane;

    // the queue along the march: before (b), current (c), after (a) and the one after that (n);
    // kappa only where a flux is computed
    float ub = 0.0f, uc = 0.0f, ua = 0.0f, un = 0.0f, kb = 0.0f, kc = 0.0f, ka = 0.0f, kn = 0.0f;
    for (int k = -1; k <= 2; ++k) {
        const int zz = zfirst + dir * k;
        if (k > n) break;  // plane n along is the last plane's neighbour; those past it are never used
        if (zz < 0 || zz >= nz) continue;
        const float uv = u[zz * plane + col], kv = edge ? 0.0f : kappa[zz * plane + col];
        if (k == -1) { ub = uv; kb = kv; }
        if (k == 0) { uc = uv; kc = kv; }
        if (k == 1) { ua = uv; ka = kv; }
        if (k == 2) { un = uv; kn = kv; }
    }

    for (int s = 0; s < n; ++s) {
        const int z = zfirst + dir * s;
        const long long i = z * plane + col;
        if (edge || z == 0 || z == nz - 1) {
            u_new[i] = uc;
        } else {
            const float uw = u[i - 1], ue = u[i + 1], us = u[i - nx], uN = u[i + nx];
            const float kw = kappa[i - 1], ke = kappa[i + 1], ks = kappa[i - nx], kN = kappa[i + nx];
            // planes z-1 and z+1, whichever way the march goes
            const float uzm = dir > 0 ? ub : ua, uzp = dir > 0 ? ua : ub;
            const float kzm = dir > 0 ? kb : ka, kzp = dir > 0 ? ka : kb;
            // the naive port's order of the six faces, so the sums round alike
            float flux = 0.0f;
            flux += 0.5f * (kc + kw) * (uw - uc);
            flux += 0.5f * (kc + ke) * (ue - uc);
            flux += 0.5f * (kc + ks) * (us - uc);
            flux += 0.5f * (kc + kN) * (uN - uc);
            flux += 0.5f * (kc + kzm) * (uzm - uc);
            flux += 0.5f * (kc + kzp) * (uzp - uc);
            u_new[i] = uc + r * flux;
        }
        // rotate the queue and take in the plane three along (used two planes from now)
        const int zf = z + 3 * dir;
        const bool more = s + 2 < n && zf >= 0 && zf < nz;
        ub = uc;
        uc = ua;
        ua = un;
        un = more ? u[i + 3 * step] : 0.0f;
        kb = kc;
        kc = ka;
        ka = kn;
        kn = more && !edge ? kappa[i + 3 * step] : 0.0f;
    }
}

void heat_3d_varcoef(int nz, int ny, int nx, const float* u, const float* kappa, float r, float* u_new) {
    if (nz <= 0 || ny <= 0 || nx <= 0) return;
    dim3 block(BX, BY);
    dim3 grid((nx + BX - 1) / BX, (ny + BY - 1) / BY, (nz + ZCHUNK - 1) / ZCHUNK);
    heat_zmarch<<<grid, block>>>(nz, ny, nx, u, kappa, r, u_new);
}
