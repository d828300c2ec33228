#include <cmath>
#include <vector>

void bilateral_filter(int height, int width, int radius, const float* img, float sigma_space, float sigma_range,
                      float* out) {
    const int side = 2 * radius + 1;
    const float space_coef = -0.5f / (sigma_space * sigma_space);
    const float range_coef = -0.5f / (sigma_range * sigma_range);
    // Spatial weights depend only on the offset: tabulate them once.
    std::vector<float> spatial(static_cast<size_t>(side) * side);
    for (int dy = -radius; dy <= radius; ++dy)
        for (int dx = -radius; dx <= radius; ++dx)
            spatial[(dy + radius) * side + (dx + radius)] = std::exp(space_coef * static_cast<float>(dx * dx + dy * dy));

    for (int y = 0; y < height; ++y) {
        for (int x = 0; x < width; ++x) {
            const float center = img[static_cast<long long>(y) * width + x];
            double weighted = 0.0, total = 0.0;
            for (int dy = -radius; dy <= radius; ++dy) {
                int yy = y + dy;
                if (yy < 0 || yy >= height) continue;
                const float* row = img + static_cast<long long>(yy) * width;
                for (int dx = -radius; dx <= radius; ++dx) {
                    int xx = x + dx;
                    if (xx < 0 || xx >= width) continue;
                    float diff = row[xx] - center;
                    float w = spatial[(dy + radius) * side + (dx + radius)] * std::exp(range_coef * diff * diff);
                    weighted += static_cast<double>(w) * row[xx];
                    total += w;
                }
            }
            out[static_cast<long long>(y) * width + x] = static_cast<float>(weighted / total);
        }
    }
}
