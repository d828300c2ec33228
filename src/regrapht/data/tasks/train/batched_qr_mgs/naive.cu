// One thread per matrix: modified Gram-Schmidt in place in Q (global memory), in fp32.
__global__ void qr_mgs_naive(int batch, int m, int n, const float* A, float* Q, float* R) {
    int b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= batch) return;
    const float* a = A + (long long)b * m * n;
    float* q = Q + (long long)b * m * n;
    float* r = R + (long long)b * n * n;
    for (int t = 0; t < m * n; ++t) q[t] = a[t];
    for (int t = 0; t < n * n; ++t) r[t] = 0.0f;
    for (int p = 0; p < n; ++p) {
        float norm2 = 0.0f;
        for (int i = 0; i < m; ++i) norm2 += q[i * n + p] * q[i * n + p];
        float norm = sqrtf(norm2);
        r[p * n + p] = norm;
        for (int i = 0; i < m; ++i) q[i * n + p] /= norm;
        for (int j = p + 1; j < n; ++j) {
            float dot = 0.0f;
            for (int i = 0; i < m; ++i) dot += q[i * n + p] * q[i * n + j];
            r[p * n + j] = dot;
            for (int i = 0; i < m; ++i) q[i * n + j] -= dot * q[i * n + p];
        }
    }
}

void batched_qr_mgs(int batch, int m, int n, const float* A, float* Q, float* R) {
    if (batch <= 0) return;
    qr_mgs_naive<<<(batch + 127) / 128, 128>>>(batch, m, n, A, Q, R);
}
