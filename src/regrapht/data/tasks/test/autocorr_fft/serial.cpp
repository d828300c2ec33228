#include <vector>

// The direct definition: lag k pairs every sample with the one k steps later. The loops run sample
// by sample, each sample adding to every lag at once (independent sums: the inner loop vectorizes).
void autocorr_fft(int batch, int n, int lags, const float* x, float* r) {
    std::vector<double> acc(lags);
    for (int b = 0; b < batch; ++b) {
        const float* s = x + static_cast<long long>(b) * n;
        for (int k = 0; k < lags; ++k) acc[k] = 0.0;
        for (int i = 0; i < n; ++i) {
            const double si = s[i];
            const int top = lags < n - i ? lags : n - i;
            for (int k = 0; k < top; ++k) acc[k] += si * s[i + k];
        }
        for (int k = 0; k < lags; ++k) r[static_cast<long long>(b) * lags + k] = static_cast<float>(acc[k]);
    }
}
