__global__ void ger_update_kernel(int m, int n, float alpha, const float* x, const float* y, float* A) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= m || j >= n) return;
    A[(long long)i * n + j] += alpha * x[i] * y[j];
}

void ger_update(int m, int n, float alpha, const float* x, const float* y, float* A) {
    if (m <= 0 || n <= 0) return;
    dim3 block(32, 8);
    dim3 grid((n + 31) / 32, (m + 7) / 8);
    ger_update_kernel<<<grid, block>>>(m, n, alpha, x, y, A);
}
