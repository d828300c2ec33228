void scale_test(int n, float a, const float* x, float* out) {
    for (int i = 0; i < n; ++i) out[i] = a * x[i];
}
