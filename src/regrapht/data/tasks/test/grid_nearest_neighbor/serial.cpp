// Short-range nearest-neighbour search on a uniform grid (particle codes, collision detection).
#include <algorithm>

void grid_nearest_neighbor(int n, int grid, const float* xy, const int* cell_start, float* nearest_d2) {
    for (int i = 0; i < n; ++i) {
        const float x = xy[2 * i], y = xy[2 * i + 1];
        const int cx = std::min(static_cast<int>(x * static_cast<float>(grid)), grid - 1);
        const int cy = std::min(static_cast<int>(y * static_cast<float>(grid)), grid - 1);
        float best = -1.0f;
        for (int ny = std::max(cy - 1, 0); ny <= std::min(cy + 1, grid - 1); ++ny) {
            for (int nx = std::max(cx - 1, 0); nx <= std::min(cx + 1, grid - 1); ++nx) {
                const int c = ny * grid + nx;
                for (int j = cell_start[c]; j < cell_start[c + 1]; ++j) {
                    if (j == i) continue;
                    const float dx = xy[2 * j] - x, dy = xy[2 * j + 1] - y;
                    const float d2 = dx * dx + dy * dy;
                    if (best < 0.0f || d2 < best) best = d2;
                }
            }
        }
        nearest_d2[i] = best;
    }
}
