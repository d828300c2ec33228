#include <algorithm>

void rgb_to_hsv(int n, const unsigned char* rgb, float* hue, float* sat, float* val) {
    for (int i = 0; i < n; ++i) {
        const unsigned char* px = rgb + 3LL * i;
        int r = px[0], g = px[1], b = px[2];
        int hi = std::max(r, std::max(g, b));
        int lo = std::min(r, std::min(g, b));
        int delta = hi - lo;
        float h = 0.0f;
        if (delta > 0) {
            float d = static_cast<float>(delta);
            if (hi == r) {
                h = 60.0f * (static_cast<float>(g - b) / d);
                if (h < 0.0f) h += 360.0f;
            } else if (hi == g) {
                h = 60.0f * (static_cast<float>(b - r) / d + 2.0f);
            } else {
                h = 60.0f * (static_cast<float>(r - g) / d + 4.0f);
            }
        }
        hue[i] = h;
        sat[i] = hi > 0 ? static_cast<float>(delta) / static_cast<float>(hi) : 0.0f;
        val[i] = static_cast<float>(hi) / 255.0f;
    }
}
