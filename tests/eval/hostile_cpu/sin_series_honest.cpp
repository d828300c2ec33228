// The honest candidate for sin_series: the serial loop, split across threads.
#include <cmath>

extern "C" void sin_series(int n, int k, const float* x, float* out) {
#pragma omp parallel for
    for (int i = 0; i < n; ++i) {
        double s = 0.0;
        for (int j = 1; j <= k; ++j) s += std::sin(j * static_cast<double>(x[i])) / j;
        out[i] = static_cast<float>(s);
    }
}
