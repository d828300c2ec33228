__global__ void k(int n, float* out) {
    volatile int spin = 1;
    while (spin) {}
    out[0] = 0.0f;
}
extern "C" void vec_scale(int n, float a, const float* x, float* out) {
    k<<<1, 1>>>(n, out);
}
