#include <cmath>
#include <vector>

// Iterative radix-2 decimation-in-time FFT per signal, in double: bit-reversal permutation, then
// log2(n) butterfly stages with twiddles computed in double.
void fft_radix2_batch(int batch, int n, const cuFloatComplex* x, cuFloatComplex* X) {
    const double pi = 3.14159265358979323846;
    int bits = 0;
    while ((1 << bits) < n) ++bits;
    std::vector<double> re(n), im(n);
    for (int b = 0; b < batch; ++b) {
        const cuFloatComplex* in = x + static_cast<long long>(b) * n;
        for (int t = 0; t < n; ++t) {
            int r = 0;
            for (int q = 0; q < bits; ++q) r |= ((t >> q) & 1) << (bits - 1 - q);
            re[r] = in[t].x;
            im[r] = in[t].y;
        }
        for (int len = 2; len <= n; len <<= 1) {
            const int half = len / 2;
            for (int j = 0; j < half; ++j) {
                const double ang = -2.0 * pi * j / len;
                const double wr = std::cos(ang), wi = std::sin(ang);
                for (int s = 0; s < n; s += len) {
                    const int u = s + j, v = s + j + half;
                    const double tr = wr * re[v] - wi * im[v];
                    const double ti = wr * im[v] + wi * re[v];
                    re[v] = re[u] - tr;
                    im[v] = im[u] - ti;
                    re[u] += tr;
                    im[u] += ti;
                }
            }
        }
        cuFloatComplex* out = X + static_cast<long long>(b) * n;
        for (int k = 0; k < n; ++k) out[k] = make_cuFloatComplex(static_cast<float>(re[k]), static_cast<float>(im[k]));
    }
}
