__global__ void gemv_transposed_col_per_thread(int m, int n, float alpha, const float* A, const float* x, float beta,
                                               float* y) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= n) return;
    float sum = 0.0f;
    for (int i = 0; i < m; ++i) sum += A[(long long)i * n + j] * x[i];
    y[j] = alpha * sum + beta * y[j];
}

void gemv_transposed(int m, int n, float alpha, const float* A, const float* x, float beta, float* y) {
    if (n <= 0) return;
    gemv_transposed_col_per_thread<<<(n + 127) / 128, 128>>>(m, n, alpha, A, x, beta, y);
}
