// The direct definition: lag k pairs every sample with the one k steps later.
void autocorr_fft(int batch, int n, int lags, const float* x, float* r) {
    for (int b = 0; b < batch; ++b) {
        const float* s = x + static_cast<long long>(b) * n;
        for (int k = 0; k < lags; ++k) {
            double acc = 0.0;
            for (int i = 0; i + k < n; ++i) acc += static_cast<double>(s[i]) * s[i + k];
            r[static_cast<long long>(b) * lags + k] = static_cast<float>(acc);
        }
    }
}
