#include <algorithm>

void median_filter_5x5(int height, int width, const unsigned char* img, unsigned char* out) {
    unsigned char window[25];
    for (int y = 0; y < height; ++y) {
        for (int x = 0; x < width; ++x) {
            int n = 0;
            for (int dy = -2; dy <= 2; ++dy) {
                const int yy = std::min(std::max(y + dy, 0), height - 1);
                const unsigned char* row = img + static_cast<long long>(yy) * width;
                for (int dx = -2; dx <= 2; ++dx) window[n++] = row[std::min(std::max(x + dx, 0), width - 1)];
            }
            std::nth_element(window, window + 12, window + 25);
            out[static_cast<long long>(y) * width + x] = window[12];
        }
    }
}
