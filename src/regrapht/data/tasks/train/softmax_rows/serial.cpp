#include <cmath>

void softmax_rows(int rows, int cols, const float* logits, float* probs) {
    for (int r = 0; r < rows; ++r) {
        const float* in = logits + static_cast<long long>(r) * cols;
        float* out = probs + static_cast<long long>(r) * cols;
        float peak = in[0];
        for (int c = 1; c < cols; ++c) peak = std::fmax(peak, in[c]);
        double total = 0.0;
        for (int c = 0; c < cols; ++c) total += std::exp(static_cast<double>(in[c] - peak));
        for (int c = 0; c < cols; ++c) out[c] = static_cast<float>(std::exp(static_cast<double>(in[c] - peak)) / total);
    }
}
