// A direct port: one thread per polyline walks its vertices in order.
__global__ void polyline_kernel(int n, int points, const float* xy, float* length) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float* p = xy + 2LL * i * points;
    float total = 0.0f;
    for (int k = 1; k < points; ++k) {
        const float dx = p[2 * k] - p[2 * k - 2], dy = p[2 * k + 1] - p[2 * k - 1];
        total += sqrtf(dx * dx + dy * dy);
    }
    length[i] = total;
}

void polyline_lengths(int n, int points, const float* xy, float* length) {
    if (n > 0) polyline_kernel<<<(n + 255) / 256, 256>>>(n, points, xy, length);
}
