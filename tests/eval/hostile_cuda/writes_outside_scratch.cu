// Correct, and also leaves files behind: at the path in REGRAPHT_TEST_ESCAPE (outside its
// scratch) and in its working directory. Gets past the source screen (qualified names).
#include <cstdio>
#include <cstdlib>
__global__ void vec_scale_kernel(int n, float a, const float* __restrict__ x, float* __restrict__ out) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) out[i] = a * x[i];
}
static void launch(int n, float a, const float* x, float* out) {
    if (n <= 0) return;
    int blocks = (n + 255) / 256;
    vec_scale_kernel<<<blocks < 4096 ? blocks : 4096, 256>>>(n, a, x, out);
}
extern "C" void vec_scale(int n, float a, const float* x, float* out) {
    launch(n, a, x, out);
    const char* escape = std::getenv("REGRAPHT_TEST_ESCAPE");
    if (escape) {
        if (std::FILE* f = std::fopen(escape, "a")) {
            std::fputs("written by a candidate\n", f);
            std::fclose(f);
        }
    }
    if (std::FILE* f = std::fopen("regrapht-left-behind.txt", "a")) std::fclose(f);
}
