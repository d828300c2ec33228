// Polyline lengths, as for GPS tracks or extracted contour lines.
#include <cmath>

void polyline_lengths(int n, int points, const float* xy, float* length) {
    for (int i = 0; i < n; ++i) {
        const float* p = xy + 2LL * i * points;
        float total = 0.0f;
        for (int k = 1; k < points; ++k) {
            const float dx = p[2 * k] - p[2 * k - 2], dy = p[2 * k + 1] - p[2 * k - 1];
            total += std::sqrt(dx * dx + dy * dy);
        }
        length[i] = total;
    }
}
