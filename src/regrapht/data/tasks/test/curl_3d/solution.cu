// steps: thread_coarsening, register_tiling
// Each thread marches up a z-segment of one (i, j) column. The z-neighbours of u and v (the two
// fields differentiated in z) slide through registers, so every plane of u and v is loaded once per
// column instead of three times by different blocks; x- and y-neighbours come from L1 as before.
// Segments of 32 planes keep enough columns in flight (nx*ny*nz/32 threads) to fill the GPU.
#define SEGMENT 32

__global__ void curl_march(int nx, int ny, int nz, float inv_2h, const float* __restrict__ u,
                           const float* __restrict__ v, const float* __restrict__ w, float* __restrict__ cx,
                           float* __restrict__ cy, float* __restrict__ cz) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= nx || j >= ny) return;
    int k0 = blockIdx.z * SEGMENT;
    int k1 = min(k0 + SEGMENT, nz);
    const long long sy = nx, sz = (long long)nx * ny;
    long long p = i + sy * j + sz * k0;
    bool edge = i == 0 || j == 0 || i == nx - 1 || j == ny - 1;
    if (edge) {
        for (int k = k0; k < k1; ++k, p += sz) cx[p] = cy[p] = cz[p] = 0.0f;
        return;
    }
    // u and v at k-1 and k; the k+1 value is loaded each iteration
    float u_below = k0 > 0 ? u[p - sz] : 0.0f, v_below = k0 > 0 ? v[p - sz] : 0.0f;
    float u_here = u[p], v_here = v[p];
    for (int k = k0; k < k1; ++k, p += sz) {
        bool interior = k > 0 && k < nz - 1;
        bool has_above = k + 1 < nz;
        float u_above = has_above ? u[p + sz] : 0.0f;
        float v_above = has_above ? v[p + sz] : 0.0f;
        if (interior) {
            float dw_dy = (w[p + sy] - w[p - sy]) * inv_2h;
            float dv_dz = (v_above - v_below) * inv_2h;
            float du_dz = (u_above - u_below) * inv_2h;
            float dw_dx = (w[p + 1] - w[p - 1]) * inv_2h;
            float dv_dx = (v[p + 1] - v[p - 1]) * inv_2h;
            float du_dy = (u[p + sy] - u[p - sy]) * inv_2h;
            cx[p] = dw_dy - dv_dz;
            cy[p] = du_dz - dw_dx;
            cz[p] = dv_dx - du_dy;
        } else {
            cx[p] = cy[p] = cz[p] = 0.0f;
        }
        u_below = u_here;
        v_below = v_here;
        u_here = u_above;
        v_here = v_above;
    }
}

void curl_3d(int nx, int ny, int nz, float inv_2h, const float* u, const float* v, const float* w, float* cx,
             float* cy, float* cz) {
    if (nx <= 0 || ny <= 0 || nz <= 0) return;
    dim3 block(32, 4);
    dim3 grid((nx + 31) / 32, (ny + 3) / 4, (nz + SEGMENT - 1) / SEGMENT);
    curl_march<<<grid, block>>>(nx, ny, nz, inv_2h, u, v, w, cx, cy, cz);
}
