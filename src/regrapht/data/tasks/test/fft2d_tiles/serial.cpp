#include <complex>
#include <vector>

using cd = std::complex<double>;

// Recursive decimation-in-time FFT of v[0], v[step], v[2*step], ... (len values) into out.
static void dit(const cd* v, int len, int step, cd* out) {
    if (len == 1) {
        out[0] = v[0];
        return;
    }
    const int h = len / 2;
    dit(v, h, 2 * step, out);          // even samples -> out[0 .. h)
    dit(v + step, h, 2 * step, out + h);  // odd samples -> out[h .. len)
    const double pi = 3.14159265358979323846;
    for (int k = 0; k < h; ++k) {
        const cd e = out[k];
        const cd o = std::polar(1.0, -2.0 * pi * k / len) * out[k + h];
        out[k] = e + o;
        out[k + h] = e - o;
    }
}

void fft2d_tiles(int batch, int s, const cuFloatComplex* x, cuFloatComplex* X, float* work) {
    (void)work;
    const long long area = static_cast<long long>(s) * s;
    std::vector<cd> tile(area), line(s), spec(s);
    for (int t = 0; t < batch; ++t) {
        const cuFloatComplex* in = x + t * area;
        for (long long e = 0; e < area; ++e) tile[e] = cd(in[e].x, in[e].y);
        for (int r = 0; r < s; ++r) {  // rows
            dit(&tile[static_cast<long long>(r) * s], s, 1, spec.data());
            for (int c = 0; c < s; ++c) tile[static_cast<long long>(r) * s + c] = spec[c];
        }
        for (int c = 0; c < s; ++c) {  // columns
            for (int r = 0; r < s; ++r) line[r] = tile[static_cast<long long>(r) * s + c];
            dit(line.data(), s, 1, spec.data());
            for (int r = 0; r < s; ++r) tile[static_cast<long long>(r) * s + c] = spec[r];
        }
        cuFloatComplex* out = X + t * area;
        for (long long e = 0; e < area; ++e)
            out[e] = make_cuFloatComplex(static_cast<float>(tile[e].real()), static_cast<float>(tile[e].imag()));
    }
}
