#include <cmath>
#include <complex>
#include <vector>

// In-place iterative radix-2 FFT (bit-reversal permutation, then decimation-in-time butterflies);
// sign = -1 forward, +1 inverse (unnormalized).
static void fft(std::vector<std::complex<double>>& a, int sign) {
    const int n = static_cast<int>(a.size());
    for (int i = 1, j = 0; i < n; ++i) {
        int bit = n >> 1;
        for (; j & bit; bit >>= 1) j ^= bit;
        j ^= bit;
        if (i < j) std::swap(a[i], a[j]);
    }
    const double pi = std::acos(-1.0);
    for (int len = 2; len <= n; len <<= 1) {
        for (int start = 0; start < n; start += len)
            for (int k = 0; k < len / 2; ++k) {
                const std::complex<double> w = std::polar(1.0, sign * 2.0 * pi * k / len);
                const std::complex<double> u = a[start + k], t = w * a[start + k + len / 2];
                a[start + k] = u + t;
                a[start + k + len / 2] = u - t;
            }
    }
}

// Analytic signal: keep DC and Nyquist, double the positive frequencies, drop the negative ones.
void hilbert_envelope(int batch, int n, const float* x, float* env, float* work) {
    (void)work;
    std::vector<std::complex<double>> a(n);
    for (int b = 0; b < batch; ++b) {
        const float* s = x + static_cast<long long>(b) * n;
        for (int i = 0; i < n; ++i) a[i] = s[i];
        fft(a, -1);
        for (int k = 1; k < n; ++k) a[k] *= (2 * k < n) ? 2.0 : (2 * k == n ? 1.0 : 0.0);
        fft(a, +1);
        for (int i = 0; i < n; ++i) env[static_cast<long long>(b) * n + i] = static_cast<float>(std::abs(a[i]) / n);
    }
}
