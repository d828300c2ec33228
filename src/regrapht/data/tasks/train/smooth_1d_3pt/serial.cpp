void smooth_1d_3pt(int n, const float* x, float w_side, float* y) {
    if (n == 1) {
        y[0] = x[0];
        return;
    }
    const float w_mid = 1.0f - 2.0f * w_side;
    for (int i = 0; i < n; ++i) {
        float left = (i > 0) ? x[i - 1] : x[1];
        float right = (i < n - 1) ? x[i + 1] : x[n - 2];
        y[i] = w_side * left + w_mid * x[i] + w_side * right;
    }
}
