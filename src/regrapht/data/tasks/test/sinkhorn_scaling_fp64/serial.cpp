#include <vector>

void sinkhorn_scaling_fp64(int n, int m, int iters, const double* Kmat, const double* a, const double* b, double* u,
                           double* v, double* work) {
    (void)work;
    std::vector<double> cu(n), cv(m, 1.0), colsum(m);
    for (int it = 0; it < iters; ++it) {
        for (int i = 0; i < n; ++i) {
            const double* row = Kmat + static_cast<long long>(i) * m;
            double s = 0.0;
            for (int j = 0; j < m; ++j) s += row[j] * cv[j];
            cu[i] = a[i] / s;
        }
        for (int j = 0; j < m; ++j) colsum[j] = 0.0;
        for (int i = 0; i < n; ++i) {
            const double* row = Kmat + static_cast<long long>(i) * m;
            for (int j = 0; j < m; ++j) colsum[j] += row[j] * cu[i];
        }
        for (int j = 0; j < m; ++j) cv[j] = b[j] / colsum[j];
    }
    for (int i = 0; i < n; ++i) u[i] = cu[i];
    for (int j = 0; j < m; ++j) v[j] = cv[j];
}
