#include <vector>

void jacobi_dense_fp64(int n, int iters, const double* A, const double* b, double* x) {
    std::vector<double> next(n);
    for (int i = 0; i < n; ++i) x[i] = 0.0;
    for (int it = 0; it < iters; ++it) {
        for (int i = 0; i < n; ++i) {
            const double* a = A + static_cast<long long>(i) * n;
            double off = 0.0;
            for (int j = 0; j < n; ++j) {
                if (j != i) off += a[j] * x[j];
            }
            next[i] = (b[i] - off) / a[i];
        }
        for (int i = 0; i < n; ++i) x[i] = next[i];
    }
}
