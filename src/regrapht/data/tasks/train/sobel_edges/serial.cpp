#include <algorithm>
#include <cmath>

void sobel_edges(int height, int width, const unsigned char* img, float* magnitude, float* direction) {
    for (int y = 0; y < height; ++y) {
        const int ym = std::max(y - 1, 0), yp = std::min(y + 1, height - 1);
        const unsigned char* up = img + static_cast<long long>(ym) * width;
        const unsigned char* mid = img + static_cast<long long>(y) * width;
        const unsigned char* down = img + static_cast<long long>(yp) * width;
        for (int x = 0; x < width; ++x) {
            const int xm = std::max(x - 1, 0), xp = std::min(x + 1, width - 1);
            int gx = (up[xp] + 2 * mid[xp] + down[xp]) - (up[xm] + 2 * mid[xm] + down[xm]);
            int gy = (down[xm] + 2 * down[x] + down[xp]) - (up[xm] + 2 * up[x] + up[xp]);
            long long i = static_cast<long long>(y) * width + x;
            magnitude[i] = std::sqrt(static_cast<float>(gx * gx + gy * gy));
            direction[i] = std::atan2(static_cast<float>(gy), static_cast<float>(gx));
        }
    }
}
