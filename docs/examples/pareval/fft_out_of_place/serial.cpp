#include <cmath>
#include <cstddef>
#include <cuComplex.h>
#include <vector>

// Iterative radix-2 decimation in time; each twiddle is computed from its own angle (no repeated
// multiplication, whose rounding would grow with N).
void fft(const cuDoubleComplex* x, cuDoubleComplex* output, size_t N) {
    const double two_pi = 6.283185307179586476925286766559;
    unsigned bits = 0;
    while ((size_t{1} << bits) < N) ++bits;
    for (size_t i = 0; i < N; ++i) {
        size_t r = 0;
        for (unsigned b = 0; b < bits; ++b) r |= ((i >> b) & 1) << (bits - 1 - b);
        output[r] = x[i];
    }
    for (size_t len = 2; len <= N; len <<= 1) {
        for (size_t j = 0; j < len / 2; ++j) {
            double angle = -two_pi * (double)j / (double)len;
            cuDoubleComplex w = make_cuDoubleComplex(std::cos(angle), std::sin(angle));
            for (size_t start = 0; start < N; start += len) {
                cuDoubleComplex u = output[start + j];
                cuDoubleComplex v = cuCmul(output[start + j + len / 2], w);
                output[start + j] = cuCadd(u, v);
                output[start + j + len / 2] = cuCsub(u, v);
            }
        }
    }
}
