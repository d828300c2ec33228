#include <cmath>
#include <vector>

// Muon's quintic Newton-Schulz iteration in double precision.
void newton_schulz_bf16(int m, int n, int steps, const float* G, float* X, float* work) {
    (void)work;
    const double a = 3.4445, b = -4.7750, c = 2.0315;
    const size_t mn = static_cast<size_t>(m) * n, mm = static_cast<size_t>(m) * m;
    std::vector<double> x(mn), next(mn), xt(mn), A(mm), B(mm);
    double norm = 0.0;
    for (size_t e = 0; e < mn; ++e) norm += static_cast<double>(G[e]) * G[e];
    norm = std::sqrt(norm) + 1e-7;
    for (size_t e = 0; e < mn; ++e) x[e] = G[e] / norm;
    for (int s = 0; s < steps; ++s) {
        for (int i = 0; i < m; ++i)  // X^T, so that every inner loop below runs over independent sums
            for (int k = 0; k < n; ++k) xt[static_cast<size_t>(k) * m + i] = x[static_cast<size_t>(i) * n + k];
        for (int i = 0; i < m; ++i) {  // A = X X^T
            double* row = &A[static_cast<size_t>(i) * m];
            for (int j = 0; j < m; ++j) row[j] = 0.0;
            for (int k = 0; k < n; ++k) {
                const double xik = x[static_cast<size_t>(i) * n + k];
                const double* col = &xt[static_cast<size_t>(k) * m];
                for (int j = 0; j < m; ++j) row[j] += xik * col[j];
            }
        }
        for (int i = 0; i < m; ++i) {  // B = b A + c A A
            for (int j = 0; j < m; ++j) B[static_cast<size_t>(i) * m + j] = b * A[static_cast<size_t>(i) * m + j];
            for (int k = 0; k < m; ++k) {
                const double aik = c * A[static_cast<size_t>(i) * m + k];
                for (int j = 0; j < m; ++j) B[static_cast<size_t>(i) * m + j] += aik * A[static_cast<size_t>(k) * m + j];
            }
        }
        for (int i = 0; i < m; ++i) {  // X = a X + B X
            double* out = &next[static_cast<size_t>(i) * n];
            for (int j = 0; j < n; ++j) out[j] = a * x[static_cast<size_t>(i) * n + j];
            for (int k = 0; k < m; ++k) {
                const double bik = B[static_cast<size_t>(i) * m + k];
                const double* row = &x[static_cast<size_t>(k) * n];
                for (int j = 0; j < n; ++j) out[j] += bik * row[j];
            }
        }
        x.swap(next);
    }
    for (size_t e = 0; e < mn; ++e) X[e] = static_cast<float>(x[e]);
}
