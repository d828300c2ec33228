// Polar histogram of 2D vectors (wind roses, gradient-orientation histograms, scattering patterns).
#include <cmath>

void polar_histogram(int n, const float* xs, const float* ys, float r_max, unsigned int* counts) {
    const float kPi = 3.14159265358979f;
    const float sector_scale = 256.0f / (2.0f * kPi);
    const float ring_scale = 16.0f / r_max;
    for (int b = 0; b < 4096; ++b) counts[b] = 0;
    for (int i = 0; i < n; ++i) {
        const float x = xs[i], y = ys[i];
        const int ring = static_cast<int>(std::sqrt(x * x + y * y) * ring_scale);
        if (ring >= 16) continue;
        int sector = static_cast<int>((std::atan2(y, x) + kPi) * sector_scale);
        if (sector > 255) sector = 255;
        counts[ring * 256 + sector] += 1;
    }
}
