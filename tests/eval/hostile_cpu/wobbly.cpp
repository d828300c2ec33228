// Honest, but never the same bits twice: each call moves one element (a different one each call) by
// one unit in the last place, as a kernel summing with atomics in a varying order would. Within
// tolerance, so it must pass even though no timed output equals an earlier one.
#include <cmath>
static int calls = 0;
extern "C" void vec_scale(int n, float a, const float* x, float* out) {
    for (int i = 0; i < n; ++i) out[i] = a * x[i];
    const int moved = calls++ % n;
    out[moved] = std::nextafter(out[moved], INFINITY);
}
