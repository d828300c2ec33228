#include <algorithm>

void erode_dilate_gray(int height, int width, int radius, const unsigned char* img, unsigned char* eroded,
                       unsigned char* dilated) {
    for (int y = 0; y < height; ++y) {
        const int y_lo = std::max(y - radius, 0), y_hi = std::min(y + radius, height - 1);
        for (int x = 0; x < width; ++x) {
            const int x_lo = std::max(x - radius, 0), x_hi = std::min(x + radius, width - 1);
            unsigned char lo = 255, hi = 0;
            for (int yy = y_lo; yy <= y_hi; ++yy) {
                const unsigned char* row = img + static_cast<long long>(yy) * width;
                for (int xx = x_lo; xx <= x_hi; ++xx) {
                    lo = std::min(lo, row[xx]);
                    hi = std::max(hi, row[xx]);
                }
            }
            long long i = static_cast<long long>(y) * width + x;
            eroded[i] = lo;
            dilated[i] = hi;
        }
    }
}
