#include <algorithm>
#include <cmath>
#include <vector>

void gaussian_blur_large(int height, int width, int radius, const float* img, float sigma, float* out) {
    const int taps = 2 * radius + 1;
    std::vector<float> w(taps);
    float total = 0.0f;
    for (int k = -radius; k <= radius; ++k) {
        w[k + radius] = std::exp(-static_cast<float>(k * k) / (2.0f * sigma * sigma));
        total += w[k + radius];
    }
    for (float& v : w) v /= total;

    // Horizontal pass into tmp: each row is padded with its edge values, then filtered tap by tap.
    std::vector<float> tmp(static_cast<size_t>(height) * width);
    std::vector<float> padded(static_cast<size_t>(width) + 2 * radius);
    for (int y = 0; y < height; ++y) {
        const float* row = img + static_cast<size_t>(y) * width;
        for (int i = 0; i < width + 2 * radius; ++i) padded[i] = row[std::min(std::max(i - radius, 0), width - 1)];
        float* acc = tmp.data() + static_cast<size_t>(y) * width;
        std::fill(acc, acc + width, 0.0f);
        for (int k = 0; k < taps; ++k) {
            const float wk = w[k];
            const float* src = padded.data() + k;
            for (int x = 0; x < width; ++x) acc[x] += wk * src[x];
        }
    }
    // Vertical pass: output row y accumulates the clamped rows y-radius .. y+radius of tmp.
    for (int y = 0; y < height; ++y) {
        float* acc = out + static_cast<size_t>(y) * width;
        std::fill(acc, acc + width, 0.0f);
        for (int k = 0; k < taps; ++k) {
            const int yy = std::min(std::max(y + k - radius, 0), height - 1);
            const float wk = w[k];
            const float* src = tmp.data() + static_cast<size_t>(yy) * width;
            for (int x = 0; x < width; ++x) acc[x] += wk * src[x];
        }
    }
}
