// One thread per grid point, a 32x8 block per (x, y) tile of one z-plane.
__global__ void curl_kernel(int nx, int ny, int nz, float inv_2h, const float* u, const float* v, const float* w,
                            float* cx, float* cy, float* cz) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    int k = blockIdx.z;
    if (i >= nx || j >= ny) return;
    const long long sy = nx, sz = (long long)nx * ny;
    long long p = i + sy * j + sz * k;
    if (i == 0 || j == 0 || k == 0 || i == nx - 1 || j == ny - 1 || k == nz - 1) {
        cx[p] = cy[p] = cz[p] = 0.0f;
        return;
    }
    float dw_dy = (w[p + sy] - w[p - sy]) * inv_2h;
    float dv_dz = (v[p + sz] - v[p - sz]) * inv_2h;
    float du_dz = (u[p + sz] - u[p - sz]) * inv_2h;
    float dw_dx = (w[p + 1] - w[p - 1]) * inv_2h;
    float dv_dx = (v[p + 1] - v[p - 1]) * inv_2h;
    float du_dy = (u[p + sy] - u[p - sy]) * inv_2h;
    cx[p] = dw_dy - dv_dz;
    cy[p] = du_dz - dw_dx;
    cz[p] = dv_dx - du_dy;
}

void curl_3d(int nx, int ny, int nz, float inv_2h, const float* u, const float* v, const float* w, float* cx,
             float* cy, float* cz) {
    if (nx <= 0 || ny <= 0 || nz <= 0) return;
    dim3 block(32, 8);
    dim3 grid((nx + 31) / 32, (ny + 7) / 8, nz);
    curl_kernel<<<grid, block>>>(nx, ny, nz, inv_2h, u, v, w, cx, cy, cz);
}
