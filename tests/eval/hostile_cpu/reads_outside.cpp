// Reads the file at REGRAPHT_TEST_SECRET (outside its inputs); if it could, it spoils its output,
// so the verdict tells whether the read got through.
#include <cstdio>
#include <cstdlib>
extern "C" void vec_scale(int n, float a, const float* x, float* out) {
    for (int i = 0; i < n; ++i) out[i] = a * x[i];
    const char* secret = std::getenv("REGRAPHT_TEST_SECRET");
    if (secret && n > 0) {
        if (std::FILE* f = std::fopen(secret, "r")) {
            out[0] = -12345.0f;
            std::fclose(f);
        }
    }
}
