#include <cmath>
#include <cstddef>
#include <cuComplex.h>

// The angle is reduced exactly ((k*n) mod N) before the sine and cosine, so large k*n lose nothing.
void dft(const double* x, cuDoubleComplex* output, size_t N) {
    const double two_pi = 6.283185307179586476925286766559;
    for (size_t k = 0; k < N; ++k) {
        double re = 0.0, im = 0.0;
        for (size_t n = 0; n < N; ++n) {
            double angle = two_pi * (double)((k * n) % N) / (double)N;
            re += x[n] * std::cos(angle);
            im -= x[n] * std::sin(angle);
        }
        output[k] = make_cuDoubleComplex(re, im);
    }
}
