// One thread per cell; the neighbours wrap at both ends.
__global__ void upwind_kernel(int n, const float* u, const float* courant, float* u_next) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int left = i == 0 ? n - 1 : i - 1;
    int right = i == n - 1 ? 0 : i + 1;
    float c = courant[i];
    float gradient = c >= 0.0f ? u[i] - u[left] : u[right] - u[i];
    u_next[i] = u[i] - c * gradient;
}

void upwind_advection_1d(int n, const float* u, const float* courant, float* u_next) {
    if (n <= 0) return;
    upwind_kernel<<<(n + 255) / 256, 256>>>(n, u, courant, u_next);
}
