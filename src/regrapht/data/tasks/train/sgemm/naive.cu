__global__ void sgemm_kernel(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= M || j >= N) return;
    float sum = 0.0f;
    for (int p = 0; p < K; ++p) sum += A[(long long)i * K + p] * B[(long long)p * N + j];
    long long c = (long long)i * N + j;
    C[c] = alpha * sum + beta * C[c];
}

void sgemm(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C) {
    if (M <= 0 || N <= 0) return;
    dim3 block(16, 16);
    dim3 grid((N + 15) / 16, (M + 15) / 16);
    sgemm_kernel<<<grid, block>>>(M, N, K, alpha, A, B, beta, C);
}
