#include <algorithm>

namespace {
// Source coordinate of a destination pixel centre, clamped to [0, n_in - 1].
inline double source_coord(int d, double scale, int n_in) {
    double s = (d + 0.5) * scale - 0.5;
    return std::min(std::max(s, 0.0), static_cast<double>(n_in - 1));
}
}  // namespace

void bilinear_resize_rgb(int in_h, int in_w, int out_h, int out_w, const float* src, float* dst) {
    const double scale_y = static_cast<double>(in_h) / out_h;
    const double scale_x = static_cast<double>(in_w) / out_w;
    for (int oy = 0; oy < out_h; ++oy) {
        double sy = source_coord(oy, scale_y, in_h);
        int y0 = static_cast<int>(sy);
        int y1 = std::min(y0 + 1, in_h - 1);
        float fy = static_cast<float>(sy - y0);
        for (int ox = 0; ox < out_w; ++ox) {
            double sx = source_coord(ox, scale_x, in_w);
            int x0 = static_cast<int>(sx);
            int x1 = std::min(x0 + 1, in_w - 1);
            float fx = static_cast<float>(sx - x0);
            const float* p00 = src + (static_cast<long long>(y0) * in_w + x0) * 3;
            const float* p01 = src + (static_cast<long long>(y0) * in_w + x1) * 3;
            const float* p10 = src + (static_cast<long long>(y1) * in_w + x0) * 3;
            const float* p11 = src + (static_cast<long long>(y1) * in_w + x1) * 3;
            float* out = dst + (static_cast<long long>(oy) * out_w + ox) * 3;
            for (int c = 0; c < 3; ++c) {
                float top = p00[c] + fx * (p01[c] - p00[c]);
                float bottom = p10[c] + fx * (p11[c] - p10[c]);
                out[c] = top + fy * (bottom - top);
            }
        }
    }
}
