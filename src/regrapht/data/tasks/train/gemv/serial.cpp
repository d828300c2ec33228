void gemv(int m, int n, float alpha, const float* A, const float* x, float beta, float* y) {
    for (int i = 0; i < m; ++i) {
        double dot = 0.0;
        const float* row = A + static_cast<long long>(i) * n;
        for (int j = 0; j < n; ++j) dot += static_cast<double>(row[j]) * x[j];
        y[i] = static_cast<float>(alpha * dot + beta * static_cast<double>(y[i]));
    }
}
