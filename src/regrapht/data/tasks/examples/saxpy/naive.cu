__global__ void saxpy_kernel(int n, float a, const float* x, float* y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

void saxpy(int n, float a, const float* x, float* y) {
    if (n <= 0) return;
    int threads = 256;
    saxpy_kernel<<<(n + threads - 1) / threads, threads>>>(n, a, x, y);
}
