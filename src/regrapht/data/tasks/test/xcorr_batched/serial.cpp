#include <algorithm>
#include <vector>

void xcorr_batched(int pairs, int n, int lags, const float* x, const float* y, float* r) {
    std::vector<double> acc(lags);
    for (int p = 0; p < pairs; ++p) {
        const float* xp = x + static_cast<long long>(p) * n;
        const float* yp = y + static_cast<long long>(p) * n;
        std::fill(acc.begin(), acc.end(), 0.0);
        for (int i = 0; i < n; ++i) {
            const double xi = xp[i];
            const int lmax = std::min(lags, n - i);
            for (int l = 0; l < lmax; ++l) acc[l] += xi * yp[i + l];
        }
        for (int l = 0; l < lags; ++l) r[static_cast<long long>(p) * lags + l] = static_cast<float>(acc[l] / n);
    }
}
