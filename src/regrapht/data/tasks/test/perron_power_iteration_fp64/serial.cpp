#include <cmath>
#include <vector>

void perron_power_iteration_fp64(int n, int iters, const double* A, const double* v0, double* v,
                                 double* lambda, double* work) {
    (void)work;
    std::vector<double> u(v0, v0 + n), w(n);
    double norm = 0.0;
    for (int i = 0; i < n; ++i) norm += u[i] * u[i];
    norm = std::sqrt(norm);
    for (int i = 0; i < n; ++i) u[i] /= norm;
    double lam = norm;
    for (int it = 0; it < iters; ++it) {
        double sq = 0.0;
        for (int i = 0; i < n; ++i) {
            const double* row = A + static_cast<long long>(i) * n;
            double s = 0.0;
            for (int j = 0; j < n; ++j) s += row[j] * u[j];
            w[i] = s;
            sq += s * s;
        }
        lam = std::sqrt(sq);
        for (int i = 0; i < n; ++i) u[i] = w[i] / lam;
    }
    for (int i = 0; i < n; ++i) v[i] = u[i];
    *lambda = lam;
}
