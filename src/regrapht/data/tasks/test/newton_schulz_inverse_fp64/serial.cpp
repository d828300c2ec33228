#include <algorithm>
#include <cmath>
#include <vector>

// C = A B for row-major n x n matrices, in i-k-j order
static void matmul(int n, const double* A, const double* B, double* C) {
    for (long long i = 0; i < n; ++i) {
        double* c = C + i * n;
        for (int j = 0; j < n; ++j) c[j] = 0.0;
        for (int k = 0; k < n; ++k) {
            const double a = A[i * n + k];
            const double* b = B + static_cast<long long>(k) * n;
            for (int j = 0; j < n; ++j) c[j] += a * b[j];
        }
    }
}

void newton_schulz_inverse_fp64(int n, int iters, const double* A, double* X) {
    const long long nn = static_cast<long long>(n) * n;
    double norm1 = 0.0, norminf = 0.0;
    for (int j = 0; j < n; ++j) {
        double col = 0.0;
        for (int i = 0; i < n; ++i) col += std::fabs(A[static_cast<long long>(i) * n + j]);
        norm1 = std::max(norm1, col);
    }
    for (int i = 0; i < n; ++i) {
        double row = 0.0;
        for (int j = 0; j < n; ++j) row += std::fabs(A[static_cast<long long>(i) * n + j]);
        norminf = std::max(norminf, row);
    }
    const double scale = norm1 * norminf;
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) X[static_cast<long long>(i) * n + j] = A[static_cast<long long>(j) * n + i] / scale;
    }
    std::vector<double> T(nn), Y(nn);
    for (int it = 0; it < iters; ++it) {
        matmul(n, A, X, T.data());  // T = 2I - A X
        for (long long e = 0; e < nn; ++e) T[e] = (e / n == e % n ? 2.0 : 0.0) - T[e];
        matmul(n, X, T.data(), Y.data());  // X = X T
        std::copy(Y.begin(), Y.end(), X);
    }
}
