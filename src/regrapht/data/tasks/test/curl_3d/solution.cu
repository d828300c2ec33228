// steps: read_only_cache
// naive.cu already runs at ~90% of the roofline floor on an H100 (24 bytes per point: three fields
// read, three written): its x-, y- and z-neighbour reloads hit L1 or L2, because a block's three
// z-planes (k-1, k, k+1) of the three fields (~9 MB at the bench size) stay in L2 while blockIdx.z
// advances. The best a solution can gain is the last ~10%. Marching a thread up a z-column
// (register reuse of the z-neighbours) measured 0.88x naive: one column per thread cuts the loads in
// flight per thread, and the z-planes were already L2 hits. So this keeps naive's thread per point
// and 32x8 blocks, and reads the fields through the read-only path (const __restrict__, __ldg):
// the x- and y-neighbour reloads are served by the non-coherent L1 path.
__global__ void curl_kernel(int nx, int ny, int nz, float inv_2h, const float* __restrict__ u,
                            const float* __restrict__ v, const float* __restrict__ w, float* __restrict__ cx,
                            float* __restrict__ cy, float* __restrict__ cz) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int j = blockIdx.y * blockDim.y + threadIdx.y;
    const int k = blockIdx.z;
    if (i >= nx || j >= ny) return;
    const long long sy = nx, sz = (long long)nx * ny;
    const long long p = i + sy * j + sz * k;
    if (i == 0 || j == 0 || k == 0 || i == nx - 1 || j == ny - 1 || k == nz - 1) {
        cx[p] = cy[p] = cz[p] = 0.0f;
        return;
    }
    const float dw_dy = (__ldg(w + p + sy) - __ldg(w + p - sy)) * inv_2h;
    const float dv_dz = (__ldg(v + p + sz) - __ldg(v + p - sz)) * inv_2h;
    const float du_dz = (__ldg(u + p + sz) - __ldg(u + p - sz)) * inv_2h;
    const float dw_dx = (__ldg(w + p + 1) - __ldg(w + p - 1)) * inv_2h;
    const float dv_dx = (__ldg(v + p + 1) - __ldg(v + p - 1)) * inv_2h;
    const float du_dy = (__ldg(u + p + sy) - __ldg(u + p - sy)) * inv_2h;
    cx[p] = dw_dy - dv_dz;
    cy[p] = du_dz - dw_dx;
    cz[p] = dv_dx - du_dy;
}

void curl_3d(int nx, int ny, int nz, float inv_2h, const float* u, const float* v, const float* w, float* cx,
             float* cy, float* cz) {
    if (nx <= 0 || ny <= 0 || nz <= 0) return;
    const dim3 block(32, 8);
    const dim3 grid((nx + 31) / 32, (ny + 7) / 8, nz);
    curl_kernel<<<grid, block>>>(nx, ny, nz, inv_2h, u, v, w, cx, cy, cz);
}
