#include <cmath>
#include <limits>
#include <vector>

void dtw_band_batch(int batch, int n, int radius, const float* a, const float* b, float* dist) {
    const float inf = std::numeric_limits<float>::infinity();
    int width = 2 * radius + 1;
    // row[k] holds D(i, j) for j = i + k - radius
    std::vector<float> prev(width), cur(width);
    for (int p = 0; p < batch; ++p) {
        const float* x = a + static_cast<long long>(p) * n;
        const float* y = b + static_cast<long long>(p) * n;
        for (int i = 0; i < n; ++i) {
            for (int k = 0; k < width; ++k) {
                int j = i + k - radius;
                if (j < 0 || j >= n) {
                    cur[k] = inf;
                    continue;
                }
                float cost = std::fabs(x[i] - y[j]);
                if (i == 0 && j == 0) {
                    cur[k] = cost;
                    continue;
                }
                float up = (i > 0 && k + 1 < width) ? prev[k + 1] : inf;
                float left = k > 0 ? cur[k - 1] : inf;
                float diag = i > 0 ? prev[k] : inf;
                float best = up < left ? up : left;
                best = diag < best ? diag : best;
                cur[k] = cost + best;
            }
            prev.swap(cur);
        }
        dist[p] = prev[radius];
    }
}
