// One thread per matrix: the thread copies its matrix to LU and eliminates in place there, exactly
// as the serial loop does (fp32).
__global__ void lu_naive(int batch, int n, const float* A, float* LU) {
    int b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= batch) return;
    const float* src = A + (long long)b * n * n;
    float* a = LU + (long long)b * n * n;
    for (int t = 0; t < n * n; ++t) a[t] = src[t];
    for (int p = 0; p < n; ++p) {
        float inv = 1.0f / a[p * n + p];
        for (int i = p + 1; i < n; ++i) {
            float l = a[i * n + p] * inv;
            a[i * n + p] = l;
            for (int j = p + 1; j < n; ++j) a[i * n + j] -= l * a[p * n + j];
        }
    }
}

void batched_lu_f32(int batch, int n, const float* A, float* LU) {
    if (batch <= 0 || n <= 0) return;
    lu_naive<<<(batch + 127) / 128, 128>>>(batch, n, A, LU);
}
