void batched_lu_solve_fp64(int batch, int n, const double* LU, const int* piv, const double* b, double* x) {
    for (int k = 0; k < batch; ++k) {
        const double* f = LU + static_cast<long long>(k) * n * n;  // column-major: (i, j) at j*n + i
        const int* p = piv + static_cast<long long>(k) * n;
        double* v = x + static_cast<long long>(k) * n;
        for (int i = 0; i < n; ++i) v[i] = b[static_cast<long long>(k) * n + i];
        for (int r = 0; r < n; ++r) {  // LAPACK's interchanges, in order, 1-based
            const int q = p[r] - 1;
            const double t = v[r];
            v[r] = v[q];
            v[q] = t;
        }
        // L y = P b, column by column (L has a unit diagonal)
        for (int j = 0; j < n; ++j) {
            for (int i = j + 1; i < n; ++i) v[i] -= f[j * n + i] * v[j];
        }
        // U x = y, column by column from the last
        for (int j = n - 1; j >= 0; --j) {
            v[j] /= f[j * n + j];
            for (int i = 0; i < j; ++i) v[i] -= f[j * n + i] * v[j];
        }
    }
}
