// Two transposed-direct-form-II biquads per channel, in double.
void biquad_bank(int channels, int n, const float* x, const float* coef, float* y) {
    for (int c = 0; c < channels; ++c) {
        const float* k = coef + 10LL * c;
        double z[2][2] = {{0.0, 0.0}, {0.0, 0.0}};
        for (int i = 0; i < n; ++i) {
            double v = x[static_cast<long long>(c) * n + i];
            for (int s = 0; s < 2; ++s) {
                const double b0 = k[5 * s], b1 = k[5 * s + 1], b2 = k[5 * s + 2], a1 = k[5 * s + 3], a2 = k[5 * s + 4];
                const double out = b0 * v + z[s][0];
                z[s][0] = b1 * v - a1 * out + z[s][1];
                z[s][1] = b2 * v - a2 * out;
                v = out;
            }
            y[static_cast<long long>(c) * n + i] = static_cast<float>(v);
        }
    }
}
