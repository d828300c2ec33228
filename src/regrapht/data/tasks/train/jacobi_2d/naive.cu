__global__ void jacobi_kernel(int ny, int nx, const float* u, const float* f, float h2, float* u_new) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= nx || y >= ny) return;
    int i = y * nx + x;
    if (y == 0 || x == 0 || y == ny - 1 || x == nx - 1) {
        u_new[i] = u[i];
    } else {
        u_new[i] = 0.25f * (u[i - 1] + u[i + 1] + u[i - nx] + u[i + nx] - h2 * f[i]);
    }
}

void jacobi_2d(int ny, int nx, const float* u, const float* f, float h2, float* u_new) {
    if (ny <= 0 || nx <= 0) return;
    dim3 block(16, 16);
    dim3 grid((nx + 15) / 16, (ny + 15) / 16);
    jacobi_kernel<<<grid, block>>>(ny, nx, u, f, h2, u_new);
}
