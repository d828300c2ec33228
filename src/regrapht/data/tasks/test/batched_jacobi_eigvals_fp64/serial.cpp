#include <algorithm>
#include <cmath>
#include <vector>

void batched_jacobi_eigvals_fp64(int batch, int n, const double* A, double* w) {
    std::vector<double> a(static_cast<size_t>(n) * n);
    for (int k = 0; k < batch; ++k) {
        const double* src = A + static_cast<long long>(k) * n * n;
        // symmetric copy from the lower triangle (the strict upper one holds unrelated data)
        double frob2 = 0.0;
        for (int i = 0; i < n; ++i) {
            for (int j = 0; j <= i; ++j) {
                a[i * n + j] = a[j * n + i] = src[i * n + j];
                frob2 += (i == j ? 1.0 : 2.0) * src[i * n + j] * src[i * n + j];
            }
        }
        // cyclic Jacobi: sweep over every (p, q), p < q, until the off-diagonal mass is negligible
        for (int sweep = 0; sweep < 30; ++sweep) {
            double off2 = 0.0;
            for (int p = 0; p < n; ++p) {
                for (int q = p + 1; q < n; ++q) off2 += 2.0 * a[p * n + q] * a[p * n + q];
            }
            if (off2 <= 1e-28 * frob2) break;
            for (int p = 0; p < n; ++p) {
                for (int q = p + 1; q < n; ++q) {
                    const double apq = a[p * n + q];
                    if (apq == 0.0) continue;
                    // the rotation that annihilates a[p][q], with |angle| <= pi/4
                    const double theta = (a[q * n + q] - a[p * n + p]) / (2.0 * apq);
                    const double t = (theta >= 0.0 ? 1.0 : -1.0) / (std::fabs(theta) + std::sqrt(theta * theta + 1.0));
                    const double c = 1.0 / std::sqrt(t * t + 1.0), s = t * c;
                    for (int r = 0; r < n; ++r) {  // columns p and q: A J
                        const double arp = a[r * n + p], arq = a[r * n + q];
                        a[r * n + p] = c * arp - s * arq;
                        a[r * n + q] = s * arp + c * arq;
                    }
                    for (int r = 0; r < n; ++r) {  // rows p and q: J^T (A J)
                        const double apr = a[p * n + r], aqr = a[q * n + r];
                        a[p * n + r] = c * apr - s * aqr;
                        a[q * n + r] = s * apr + c * aqr;
                    }
                    a[p * n + q] = a[q * n + p] = 0.0;
                }
            }
        }
        double* out = w + static_cast<long long>(k) * n;
        for (int i = 0; i < n; ++i) out[i] = a[i * n + i];
        std::sort(out, out + n);
    }
}
