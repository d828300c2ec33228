__global__ void batched_small_gemm_kernel(int batch, int m, int n, int k, const float* A, const float* B, float* C) {
    long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long total = (long long)batch * m * n;
    if (idx >= total) return;
    int per = m * n;
    long long b = idx / per;
    int rem = (int)(idx - b * per);
    int i = rem / n, j = rem % n;
    const float* a = A + b * m * k;
    const float* bm = B + b * k * n;
    float sum = 0.0f;
    for (int p = 0; p < k; ++p) sum += a[i * k + p] * bm[p * n + j];
    C[idx] = sum;
}

void batched_small_gemm(int batch, int m, int n, int k, const float* A, const float* B, float* C) {
    long long total = (long long)batch * m * n;
    if (total <= 0) return;
    batched_small_gemm_kernel<<<(unsigned)((total + 255) / 256), 256>>>(batch, m, n, k, A, B, C);
}
