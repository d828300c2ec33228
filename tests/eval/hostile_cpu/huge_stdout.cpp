// Floods stdout (about 24 MB over the correctness calls) and is otherwise correct.
#include <cstdio>
extern "C" void vec_scale(int n, float a, const float* x, float* out) {
    for (int k = 0; k < 20000; ++k) std::printf("noise noise noise noise noise noise noise\n");
    for (int i = 0; i < n; ++i) out[i] = a * x[i];
}
