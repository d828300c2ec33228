__global__ void wave_kernel(int n, const float* u, const float* u_prev, const float* courant2, float damping,
                            float* u_next) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    if (i == 0 || i == n - 1) {
        u_next[i] = 0.0f;
        return;
    }
    float lap = u[i - 1] - 2.0f * u[i] + u[i + 1];
    float velocity = u[i] - u_prev[i];
    u_next[i] = u[i] + velocity + courant2[i] * lap - damping * velocity;
}

void wave_1d_step(int n, const float* u, const float* u_prev, const float* courant2, float damping,
                  float* u_next) {
    if (n <= 0) return;
    wave_kernel<<<(n + 255) / 256, 256>>>(n, u, u_prev, courant2, damping, u_next);
}
