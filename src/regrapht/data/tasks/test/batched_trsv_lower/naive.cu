__global__ void batched_trsv_system_per_thread(int batch, int n, const float* L, const float* b, float* x) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= batch) return;
    const float* Lk = L + (long long)k * n * n;
    const float* bk = b + (long long)k * n;
    float* xk = x + (long long)k * n;
    for (int i = 0; i < n; ++i) {
        float s = bk[i];
        for (int j = 0; j < i; ++j) s -= Lk[i * n + j] * xk[j];
        xk[i] = s / Lk[i * n + i];
    }
}

void batched_trsv_lower(int batch, int n, const float* L, const float* b, float* x) {
    if (batch <= 0 || n <= 0) return;
    batched_trsv_system_per_thread<<<(batch + 127) / 128, 128>>>(batch, n, L, b, x);
}
