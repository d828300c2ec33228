void fir_filter(int n, int taps, const float* x, const float* h, float* y) {
    for (int i = 0; i < n; ++i) {
        double acc = 0.0;
        const int kmax = (i + 1 < taps) ? i + 1 : taps;
        for (int k = 0; k < kmax; ++k) acc += static_cast<double>(h[k]) * x[i - k];
        y[i] = static_cast<float>(acc);
    }
}
