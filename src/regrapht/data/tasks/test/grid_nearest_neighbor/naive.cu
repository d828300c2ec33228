// A direct port: one thread per point scans the points of its 3x3 cell block in global memory.
__global__ void grid_nn_kernel(int n, int grid, const float* xy, const int* cell_start, float* nearest_d2) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float x = xy[2 * i], y = xy[2 * i + 1];
    const int cx = min(static_cast<int>(x * static_cast<float>(grid)), grid - 1);
    const int cy = min(static_cast<int>(y * static_cast<float>(grid)), grid - 1);
    float best = -1.0f;
    for (int ny = max(cy - 1, 0); ny <= min(cy + 1, grid - 1); ++ny) {
        for (int nx = max(cx - 1, 0); nx <= min(cx + 1, grid - 1); ++nx) {
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

void grid_nearest_neighbor(int n, int grid, const float* xy, const int* cell_start, float* nearest_d2) {
    if (n > 0) grid_nn_kernel<<<(n + 255) / 256, 256>>>(n, grid, xy, cell_start, nearest_d2);
}
