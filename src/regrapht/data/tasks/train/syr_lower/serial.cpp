void syr_lower(int n, float alpha, const float* x, float* A) {
    for (int i = 0; i < n; ++i) {
        const float scaled = alpha * x[i];
        float* row = A + static_cast<long long>(i) * n;
        for (int j = 0; j <= i; ++j) row[j] += scaled * x[j];
    }
}
