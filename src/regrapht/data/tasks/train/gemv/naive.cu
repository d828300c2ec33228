__global__ void gemv_row_per_thread(int m, int n, float alpha, const float* A, const float* x, float beta, float* y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= m) return;
    float dot = 0.0f;
    for (int j = 0; j < n; ++j) dot += A[(long long)i * n + j] * x[j];
    y[i] = alpha * dot + beta * y[i];
}

void gemv(int m, int n, float alpha, const float* A, const float* x, float beta, float* y) {
    if (m > 0) gemv_row_per_thread<<<(m + 255) / 256, 256>>>(m, n, alpha, A, x, beta, y);
}
