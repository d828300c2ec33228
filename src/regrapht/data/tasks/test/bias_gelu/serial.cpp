#include <cmath>

void bias_gelu(int rows, int cols, const float* x, const float* bias, float* y) {
    const double inv_sqrt2 = 0.70710678118654752440;
    for (int r = 0; r < rows; ++r) {
        const float* in = x + static_cast<long long>(r) * cols;
        float* out = y + static_cast<long long>(r) * cols;
        for (int c = 0; c < cols; ++c) {
            const double v = static_cast<double>(in[c] + bias[c]);
            out[c] = static_cast<float>(0.5 * v * (1.0 + std::erf(v * inv_sqrt2)));
        }
    }
}
