void trsm_lower_multi_rhs_fp64(int n, int r, const double* L, const double* B, double* X) {
    // forward substitution on whole rows: X_i = (B_i - sum_{j<i} L[i][j] X_j) / L[i][i]
    for (int i = 0; i < n; ++i) {
        double* xi = X + static_cast<long long>(i) * r;
        const double* bi = B + static_cast<long long>(i) * r;
        for (int c = 0; c < r; ++c) xi[c] = bi[c];
        for (int j = 0; j < i; ++j) {
            const double lij = L[static_cast<long long>(i) * n + j];
            const double* xj = X + static_cast<long long>(j) * r;
            for (int c = 0; c < r; ++c) xi[c] -= lij * xj[c];
        }
        const double d = L[static_cast<long long>(i) * n + i];
        for (int c = 0; c < r; ++c) xi[c] /= d;
    }
}
