void batched_trsv_lower(int batch, int n, const float* L, const float* b, float* x) {
    for (int k = 0; k < batch; ++k) {
        const float* Lk = L + static_cast<long long>(k) * n * n;
        const float* bk = b + static_cast<long long>(k) * n;
        float* xk = x + static_cast<long long>(k) * n;
        for (int i = 0; i < n; ++i) {
            double s = bk[i];
            for (int j = 0; j < i; ++j) s -= static_cast<double>(Lk[i * n + j]) * xk[j];
            xk[i] = static_cast<float>(s / Lk[i * n + i]);
        }
    }
}
