void syrk_gram_fp64(int n, int k, const double* A, double* C) {
    for (int i = 0; i < n; ++i) {
        const double* ai = A + static_cast<long long>(i) * k;
        for (int j = 0; j <= i; ++j) {
            const double* aj = A + static_cast<long long>(j) * k;
            double s = 0.0;
            for (int p = 0; p < k; ++p) s += ai[p] * aj[p];
            // symmetric: the lower triangle is computed, the upper mirrors it
            C[static_cast<long long>(i) * n + j] = s;
            C[static_cast<long long>(j) * n + i] = s;
        }
    }
}
