void batched_small_gemm(int batch, int m, int n, int k, const float* A, const float* B, float* C) {
    for (int b = 0; b < batch; ++b) {
        const float* a = A + static_cast<long long>(b) * m * k;
        const float* bm = B + static_cast<long long>(b) * k * n;
        float* c = C + static_cast<long long>(b) * m * n;
        for (int i = 0; i < m; ++i) {
            for (int j = 0; j < n; ++j) {
                double sum = 0.0;
                for (int p = 0; p < k; ++p) sum += static_cast<double>(a[i * k + p]) * bm[p * n + j];
                c[i * n + j] = static_cast<float>(sum);
            }
        }
    }
}
