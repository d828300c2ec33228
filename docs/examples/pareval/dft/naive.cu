#include <cuComplex.h>

// One output per thread, with the angle reduced exactly as in the reference.
__global__ void dft(const double* x, cuDoubleComplex* output, size_t N) {
    size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (k >= N) return;
    double re = 0.0, im = 0.0;
    for (size_t n = 0; n < N; ++n) {
        double s, c;
        sincospi(2.0 * (double)((k * n) % N) / (double)N, &s, &c);
        re += x[n] * c;
        im -= x[n] * s;
    }
    output[k] = make_cuDoubleComplex(re, im);
}
