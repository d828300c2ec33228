// Dereferences a device pointer on the host.
extern "C" void vec_scale(int n, float a, const float* x, float* out) {
    volatile float* p = nullptr;
    *p = x[0];
}
