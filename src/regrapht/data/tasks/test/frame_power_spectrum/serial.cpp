#include <cmath>
#include <vector>

// In-place iterative radix-2 FFT of one complex sequence, in double.
static void fft_inplace(std::vector<double>& re, std::vector<double>& im) {
    const int n = static_cast<int>(re.size());
    for (int i = 1, j = 0; i < n; ++i) {
        int bit = n >> 1;
        for (; j & bit; bit >>= 1) j ^= bit;
        j ^= bit;
        if (i < j) {
            std::swap(re[i], re[j]);
            std::swap(im[i], im[j]);
        }
    }
    const double pi = 3.14159265358979323846;
    for (int len = 2; len <= n; len <<= 1) {
        const int half = len / 2;
        for (int s = 0; s < n; s += len) {
            for (int j = 0; j < half; ++j) {
                const double ang = -2.0 * pi * j / len;
                const double wr = std::cos(ang), wi = std::sin(ang);
                const int a = s + j, b = s + j + half;
                const double tr = wr * re[b] - wi * im[b];
                const double ti = wr * im[b] + wi * re[b];
                re[b] = re[a] - tr;
                im[b] = im[a] - ti;
                re[a] += tr;
                im[a] += ti;
            }
        }
    }
}

void frame_power_spectrum(int batch, int n, const float* x, float* P) {
    std::vector<double> re(n), im(n);
    const int bins = n / 2 + 1;
    for (int b = 0; b < batch; ++b) {
        const float* frame = x + static_cast<long long>(b) * n;
        for (int t = 0; t < n; ++t) {
            re[t] = frame[t];
            im[t] = 0.0;
        }
        fft_inplace(re, im);
        for (int k = 0; k < bins; ++k)
            P[static_cast<long long>(b) * bins + k] = static_cast<float>(re[k] * re[k] + im[k] * im[k]);
    }
}
