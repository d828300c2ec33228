// One thread per pair running the reference's band recurrence, its two band rows in local arrays.
// 64-thread blocks spread the pairs over every SM.
#define MAX_WIDTH 63

__global__ void dtw_kernel(int batch, int n, int radius, const float* a, const float* b, float* dist) {
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= batch) return;
    const float inf = INFINITY;
    int width = 2 * radius + 1;
    float prev[MAX_WIDTH], cur[MAX_WIDTH];
    const float* x = a + (long long)p * n;
    const float* y = b + (long long)p * n;
    for (int i = 0; i < n; ++i) {
        for (int k = 0; k < width; ++k) {
            int j = i + k - radius;
            if (j < 0 || j >= n) {
                cur[k] = inf;
                continue;
            }
            float cost = fabsf(x[i] - y[j]);
            if (i == 0 && j == 0) {
                cur[k] = cost;
                continue;
            }
            float up = (i > 0 && k + 1 < width) ? prev[k + 1] : inf;
            float left = k > 0 ? cur[k - 1] : inf;
            float diag = i > 0 ? prev[k] : inf;
            cur[k] = cost + fminf(fminf(up, left), diag);
        }
        for (int k = 0; k < width; ++k) prev[k] = cur[k];
    }
    dist[p] = prev[radius];
}

void dtw_band_batch(int batch, int n, int radius, const float* a, const float* b, float* dist) {
    if (batch <= 0) return;
    dtw_kernel<<<(batch + 63) / 64, 64>>>(batch, n, radius, a, b, dist);
}
