#include <cuComplex.h>

// A direct transform, one output per thread: O(N^2), but one launch and exact angles.
__global__ void fft(const cuDoubleComplex* x, cuDoubleComplex* output, size_t N) {
    size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (k >= N) return;
    double re = 0.0, im = 0.0;
    for (size_t n = 0; n < N; ++n) {
        double s, c;
        sincospi(-2.0 * (double)((k * n) & (N - 1)) / (double)N, &s, &c);
        re += x[n].x * c - x[n].y * s;
        im += x[n].x * s + x[n].y * c;
    }
    output[k] = make_cuDoubleComplex(re, im);
}
