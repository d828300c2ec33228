#include <algorithm>

void banded_matvec_fp64(int n, int kl, int ku, const double* ab, const double* x, double* y) {
    const int w = kl + ku + 1;
    for (int i = 0; i < n; ++i) {
        const double* band = ab + static_cast<long long>(i) * w;
        const int lo = std::max(0, i - kl), hi = std::min(n - 1, i + ku);
        double acc = 0.0;
        // band slot (j - i + kl) holds A[i][j]
        for (int j = lo; j <= hi; ++j) acc += band[j - i + kl] * x[j];
        y[i] = acc;
    }
}
