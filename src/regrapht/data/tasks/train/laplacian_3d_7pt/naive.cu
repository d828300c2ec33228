__global__ void laplacian_kernel(int nz, int ny, int nx, const float* u, float inv_h2, float* lap) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int z = blockIdx.z;
    if (x >= nx || y >= ny || z >= nz) return;
    const long long plane = static_cast<long long>(ny) * nx;
    long long i = z * plane + static_cast<long long>(y) * nx + x;
    float c = u[i];
    float xm = (x > 0) ? u[i - 1] : c;
    float xp = (x < nx - 1) ? u[i + 1] : c;
    float ym = (y > 0) ? u[i - nx] : c;
    float yp = (y < ny - 1) ? u[i + nx] : c;
    float zm = (z > 0) ? u[i - plane] : c;
    float zp = (z < nz - 1) ? u[i + plane] : c;
    lap[i] = ((xm + xp) + (ym + yp) + (zm + zp) - 6.0f * c) * inv_h2;
}

void laplacian_3d_7pt(int nz, int ny, int nx, const float* u, float inv_h2, float* lap) {
    if (nz <= 0 || ny <= 0 || nx <= 0) return;
    dim3 block(32, 8);
    dim3 grid((nx + 31) / 32, (ny + 7) / 8, nz);
    laplacian_kernel<<<grid, block>>>(nz, ny, nx, u, inv_h2, lap);
}
