#include <cmath>

void rmsnorm_residual(int rows, int cols, float eps, const float* x, float* residual, const float* weight, float* y) {
    for (int r = 0; r < rows; ++r) {
        const float* in = x + static_cast<long long>(r) * cols;
        float* h = residual + static_cast<long long>(r) * cols;
        float* out = y + static_cast<long long>(r) * cols;
        double sq = 0.0;
        for (int c = 0; c < cols; ++c) {
            h[c] += in[c];
            sq += static_cast<double>(h[c]) * h[c];
        }
        const double inv = 1.0 / std::sqrt(sq / cols + eps);
        for (int c = 0; c < cols; ++c) out[c] = static_cast<float>(h[c] * inv * weight[c]);
    }
}
