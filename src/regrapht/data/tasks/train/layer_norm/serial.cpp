#include <cmath>

void layer_norm(int rows, int cols, float eps, const float* x, const float* gamma, const float* beta, float* y,
                float* mean, float* rstd) {
    for (int r = 0; r < rows; ++r) {
        const float* in = x + static_cast<long long>(r) * cols;
        float* out = y + static_cast<long long>(r) * cols;
        double sum = 0.0;
        for (int c = 0; c < cols; ++c) sum += in[c];
        const double mu = sum / cols;
        double sq = 0.0;
        for (int c = 0; c < cols; ++c) {
            const double d = in[c] - mu;
            sq += d * d;
        }
        const double inv = 1.0 / std::sqrt(sq / cols + eps);
        for (int c = 0; c < cols; ++c) out[c] = static_cast<float>((in[c] - mu) * inv * gamma[c] + beta[c]);
        mean[r] = static_cast<float>(mu);
        rstd[r] = static_cast<float>(inv);
    }
}
