#include <cmath>
#include <vector>

// Modified Gram-Schmidt in double, column by column: normalize column p, then remove its component
// from every later column.
void batched_qr_mgs(int batch, int m, int n, const float* A, float* Q, float* R) {
    std::vector<double> q(static_cast<long long>(m) * n), r(static_cast<long long>(n) * n);
    for (int b = 0; b < batch; ++b) {
        const float* a = A + static_cast<long long>(b) * m * n;
        for (int t = 0; t < m * n; ++t) q[t] = a[t];
        for (int t = 0; t < n * n; ++t) r[t] = 0.0;
        for (int p = 0; p < n; ++p) {
            double norm2 = 0.0;
            for (int i = 0; i < m; ++i) norm2 += q[i * n + p] * q[i * n + p];
            const double norm = std::sqrt(norm2);
            r[p * n + p] = norm;
            for (int i = 0; i < m; ++i) q[i * n + p] /= norm;
            for (int j = p + 1; j < n; ++j) {
                double dot = 0.0;
                for (int i = 0; i < m; ++i) dot += q[i * n + p] * q[i * n + j];
                r[p * n + j] = dot;
                for (int i = 0; i < m; ++i) q[i * n + j] -= dot * q[i * n + p];
            }
        }
        float* qo = Q + static_cast<long long>(b) * m * n;
        float* ro = R + static_cast<long long>(b) * n * n;
        for (int t = 0; t < m * n; ++t) qo[t] = static_cast<float>(q[t]);
        for (int t = 0; t < n * n; ++t) ro[t] = static_cast<float>(r[t]);
    }
}
