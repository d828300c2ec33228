extern "C" float helper_that_does_not_exist(float);
extern "C" void vec_scale(int n, float a, const float* x, float* out) {
    for (int i = 0; i < n; ++i) out[i] = helper_that_does_not_exist(a * x[i]);
}
