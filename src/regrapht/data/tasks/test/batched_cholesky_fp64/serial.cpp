#include <cmath>

void batched_cholesky_fp64(int batch, int n, const double* A, double* L) {
    for (int k = 0; k < batch; ++k) {
        const double* a = A + static_cast<long long>(k) * n * n;
        double* l = L + static_cast<long long>(k) * n * n;
        // Cholesky-Banachiewicz, row by row: L[i][j] from the rows of L already done.
        for (int i = 0; i < n; ++i) {
            for (int j = 0; j <= i; ++j) {
                double s = a[i * n + j];
                for (int p = 0; p < j; ++p) s -= l[i * n + p] * l[j * n + p];
                l[i * n + j] = i == j ? std::sqrt(s) : s / l[j * n + j];
            }
            for (int j = i + 1; j < n; ++j) l[i * n + j] = 0.0;
        }
    }
}
