#include <cmath>
#include <utility>

void batched_inverse_gj_fp64(int batch, int n, const double* A, double* Ainv, double* work) {
    for (int k = 0; k < batch; ++k) {
        const long long o = static_cast<long long>(k) * n * n;
        double* a = work + o;  // a copy of A_k, reduced to the identity
        double* inv = Ainv + o;  // the identity, turned into the inverse
        for (int i = 0; i < n * n; ++i) {
            a[i] = A[o + i];
            inv[i] = (i / n == i % n) ? 1.0 : 0.0;
        }
        for (int c = 0; c < n; ++c) {
            int p = c;  // partial pivoting: the first row with the largest magnitude in column c
            for (int r = c + 1; r < n; ++r) {
                if (std::fabs(a[r * n + c]) > std::fabs(a[p * n + c])) p = r;
            }
            if (p != c) {
                for (int j = 0; j < n; ++j) {
                    std::swap(a[c * n + j], a[p * n + j]);
                    std::swap(inv[c * n + j], inv[p * n + j]);
                }
            }
            const double pivot = a[c * n + c];
            for (int j = 0; j < n; ++j) {
                a[c * n + j] /= pivot;
                inv[c * n + j] /= pivot;
            }
            for (int r = 0; r < n; ++r) {
                if (r == c) continue;
                const double f = a[r * n + c];
                for (int j = 0; j < n; ++j) {
                    a[r * n + j] -= f * a[c * n + j];
                    inv[r * n + j] -= f * inv[c * n + j];
                }
            }
        }
    }
}
