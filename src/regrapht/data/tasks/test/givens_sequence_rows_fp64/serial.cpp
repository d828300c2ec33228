void givens_sequence_rows_fp64(int m, int n, const double* c, const double* s, const double* A, double* B) {
    for (int r = 0; r < m; ++r) {
        const double* a = A + static_cast<long long>(r) * n;
        double* b = B + static_cast<long long>(r) * n;
        for (int j = 0; j < n; ++j) b[j] = a[j];
        // rotation j mixes column j (already rotated by j-1) with the untouched column j+1
        for (int j = 0; j + 1 < n; ++j) {
            const double t = b[j + 1];
            b[j + 1] = c[j] * t - s[j] * b[j];
            b[j] = s[j] * t + c[j] * b[j];
        }
    }
}
