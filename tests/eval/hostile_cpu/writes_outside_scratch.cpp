// Correct, and also leaves files behind: at the path in REGRAPHT_TEST_ESCAPE (outside its scratch)
// and in its working directory. Gets past the source screen (qualified names).
#include <cstdio>
#include <cstdlib>
extern "C" void vec_scale(int n, float a, const float* x, float* out) {
    for (int i = 0; i < n; ++i) out[i] = a * x[i];
    const char* escape = std::getenv("REGRAPHT_TEST_ESCAPE");
    if (escape) {
        if (std::FILE* f = std::fopen(escape, "a")) {
            std::fputs("written by a candidate\n", f);
            std::fclose(f);
        }
    }
    if (std::FILE* f = std::fopen("regrapht-left-behind.txt", "a")) std::fclose(f);
}
