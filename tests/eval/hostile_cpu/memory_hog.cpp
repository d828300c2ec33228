// Allocates and touches far more host memory than any task needs.
#include <cstdlib>
#include <cstring>
extern "C" void vec_scale(int n, float a, const float* x, float* out) {
    for (int k = 0; k < 64; ++k) {
        char* block = static_cast<char*>(std::malloc(64 << 20));
        if (block) std::memset(block, 1, 64 << 20);
    }
    for (int i = 0; i < n; ++i) out[i] = a * x[i];
}
