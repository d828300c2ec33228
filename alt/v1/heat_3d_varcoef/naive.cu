__global__ void heat_kernel(int nz, int ny, int nx, const float* u, const float* kappa, float r, float* u_new) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int z = blockIdx.z;
    if (x >= nx || y >= ny || z >= nz) return;
    const long long plane = static_cast<long long>(ny) * nx;
    const long long i = z * plane + static_cast<long long>(y) * nx + x;
    if (x == 0 || y == 0 || z == 0 || x == nx - 1 || y == ny - 1 || z == nz - 1) {
        u_new[i] = u[i];
        return;
    }
    const long long offsets[6] = {-1, 1, -static_cast<long long>(nx), nx, -plane, plane};
    const float c = u[i], kc = kappa[i];
    float flux = 0.0f;
    for (int d = 0; d < 6; ++d) {
        const long long j = i + offsets[d];
        flux += 0.5f * (kc + kappa[j]) * (u[j] - c);
    }
    u_new[i] = c + r * flux;
}

void heat_3d_varcoef(int nz, int ny, int nx, const float* u, const float* kappa, float r, float* u_new) {
    if (nz <= 0 || ny <= 0 || nx <= 0) return;
    dim3 block(32, 8);
    dim3 grid((nx + 31) / 32, (ny + 7) / 8, nz);
    heat_kernel<<<grid, block>>>(nz, ny, nx, u, kappa, r, u_new);
}
