// Bypasses the source screen: a qualified name (the file rule's lookbehind excludes `::`).
#include <cstdio>
extern "C" void vec_scale(int n, float a, const float* x, float* out) {
    for (int i = 0; i < n; ++i) out[i] = a * x[i];
    if (std::FILE* f = std::fopen("regrapht-left-behind.txt", "a")) {
        std::fputs("x", f);
        std::fclose(f);
    }
}
