#include <vector>

void cg_poisson2d_fp64(int nx, int ny, int iters, const double* b, double* x, double* work) {
    (void)work;
    const long long n = static_cast<long long>(nx) * ny;
    std::vector<double> r(b, b + n), p(b, b + n), q(n);
    for (long long k = 0; k < n; ++k) x[k] = 0.0;
    double rr = 0.0;
    for (long long k = 0; k < n; ++k) rr += r[k] * r[k];
    for (int it = 0; it < iters; ++it) {
        double pq = 0.0;
        for (int j = 0; j < ny; ++j) {
            for (int i = 0; i < nx; ++i) {
                const long long k = static_cast<long long>(j) * nx + i;
                double v = 4.0 * p[k];
                if (i > 0) v -= p[k - 1];
                if (i + 1 < nx) v -= p[k + 1];
                if (j > 0) v -= p[k - nx];
                if (j + 1 < ny) v -= p[k + nx];
                q[k] = v;
                pq += p[k] * v;
            }
        }
        const double alpha = pq != 0.0 ? rr / pq : 0.0;
        double rr_next = 0.0;
        for (long long k = 0; k < n; ++k) {
            x[k] += alpha * p[k];
            r[k] -= alpha * q[k];
            rr_next += r[k] * r[k];
        }
        const double beta = rr != 0.0 ? rr_next / rr : 0.0;
        for (long long k = 0; k < n; ++k) p[k] = r[k] + beta * p[k];
        rr = rr_next;
    }
}
