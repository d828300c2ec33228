#include <chrono>
extern "C" void vec_scale(int n, float a, const float* x, float* out) {
    auto t = std::chrono::steady_clock::now();
    (void)t;
    for (int i = 0; i < n; ++i) out[i] = a * x[i];
}
