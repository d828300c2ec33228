extern "C" void vec_scale(int n, float a, const float* x, float* out) {
    volatile int spin = 1;
    while (spin) {}
}
