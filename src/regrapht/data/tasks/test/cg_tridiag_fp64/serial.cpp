#include <vector>

void cg_tridiag_fp64(int n, int iters, const double* diag, const double* off, const double* b, double* x) {
    std::vector<double> r(b, b + n), p(b, b + n), q(n);
    double rr = 0.0;
    for (int i = 0; i < n; ++i) {
        x[i] = 0.0;
        rr += r[i] * r[i];
    }
    for (int it = 0; it < iters; ++it) {
        double pq = 0.0;
        for (int i = 0; i < n; ++i) {
            double v = diag[i] * p[i];
            if (i > 0) v += off[i - 1] * p[i - 1];
            if (i + 1 < n) v += off[i] * p[i + 1];
            q[i] = v;
            pq += p[i] * v;
        }
        const double alpha = rr / pq;
        double rr_new = 0.0;
        for (int i = 0; i < n; ++i) {
            x[i] += alpha * p[i];
            r[i] -= alpha * q[i];
            rr_new += r[i] * r[i];
        }
        const double beta = rr_new / rr;
        for (int i = 0; i < n; ++i) p[i] = r[i] + beta * p[i];
        rr = rr_new;
    }
}
