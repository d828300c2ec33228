#include <algorithm>

void box_blur_2d(int height, int width, const float* img, int radius, float* out) {
    const int side = 2 * radius + 1;
    const double inv_area = 1.0 / (static_cast<double>(side) * side);
    for (int y = 0; y < height; ++y) {
        for (int x = 0; x < width; ++x) {
            double sum = 0.0;
            for (int dy = -radius; dy <= radius; ++dy) {
                int yy = std::min(std::max(y + dy, 0), height - 1);
                const float* row = img + static_cast<long long>(yy) * width;
                for (int dx = -radius; dx <= radius; ++dx) {
                    int xx = std::min(std::max(x + dx, 0), width - 1);
                    sum += row[xx];
                }
            }
            out[static_cast<long long>(y) * width + x] = static_cast<float>(sum * inv_area);
        }
    }
}
