void ger_update(int m, int n, float alpha, const float* x, const float* y, float* A) {
    for (int i = 0; i < m; ++i) {
        const float s = alpha * x[i];
        float* row = A + static_cast<long long>(i) * n;
        for (int j = 0; j < n; ++j) row[j] += s * y[j];
    }
}
