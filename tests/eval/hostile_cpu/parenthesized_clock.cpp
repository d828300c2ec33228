// Bypasses the source screen: a parenthesized timer call.
#include <time.h>
extern "C" void vec_scale(int n, float a, const float* x, float* out) {
    struct timespec ts;
    (clock_gettime)(CLOCK_MONOTONIC, &ts);
    for (int i = 0; i < n; ++i) out[i] = a * x[i] + 0.0f * (float)(ts.tv_nsec & 1);
}
