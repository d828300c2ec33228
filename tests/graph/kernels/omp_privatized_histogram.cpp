// regrapht-target: cpu
// regrapht-expect: parallelize, atomic_operations, loop_unrolling
#include <vector>

// Per-thread histograms merged once per thread with atomics.
void histogram(const unsigned char* data, long n, unsigned long* hist) {
#pragma omp parallel
    {
        unsigned long local[256] = {0};
#pragma omp for nowait
        for (long i = 0; i < n; ++i) local[data[i]]++;
#pragma GCC unroll 4
        for (int b = 0; b < 256; ++b) {
#pragma omp atomic
            hist[b] += local[b];
        }
    }
}
