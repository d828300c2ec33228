// One thread per mass, two kernels per step: a half kick and drift (its own mass only), then, once
// every position has moved, the new acceleration and the second half kick.
__device__ double chain_accel(int n, int i, const double* stiffness, const double* mass, const double* x) {
    double left = i > 0 ? x[i - 1] : 0.0, right = i + 1 < n ? x[i + 1] : 0.0;
    return (stiffness[i] * (left - x[i]) + stiffness[i + 1] * (right - x[i])) / mass[i];
}

__global__ void chain_init(int n, const double* stiffness, const double* mass, const double* x, double* a) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] = chain_accel(n, i, stiffness, mass, x);
}

__global__ void chain_kick_drift(int n, double dt, const double* a, double* x, double* v) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    v[i] += 0.5 * dt * a[i];
    x[i] += dt * v[i];
}

__global__ void chain_force_kick(int n, double dt, const double* stiffness, const double* mass, const double* x,
                                 double* a, double* v) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    a[i] = chain_accel(n, i, stiffness, mass, x);
    v[i] += 0.5 * dt * a[i];
}

void spring_chain_verlet(int n, int steps, const double* stiffness, const double* mass, double dt, const double* x0,
                         const double* v0, double* x, double* v) {
    if (n <= 0) return;
    static double* a = nullptr;
    static int capacity = 0;
    if (n > capacity) {
        if (a) cudaFree(a);
        cudaMalloc(&a, n * sizeof(double));
        capacity = n;
    }
    cudaMemcpyAsync(x, x0, n * sizeof(double), cudaMemcpyDeviceToDevice);
    cudaMemcpyAsync(v, v0, n * sizeof(double), cudaMemcpyDeviceToDevice);
    int blocks = (n + 255) / 256;
    chain_init<<<blocks, 256>>>(n, stiffness, mass, x, a);
    for (int s = 0; s < steps; ++s) {
        chain_kick_drift<<<blocks, 256>>>(n, dt, a, x, v);
        chain_force_kick<<<blocks, 256>>>(n, dt, stiffness, mass, x, a, v);
    }
}
