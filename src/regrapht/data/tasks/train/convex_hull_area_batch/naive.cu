// One thread per set running the serial algorithm: the set is copied to a per-thread array,
// insertion-sorted by (x, y), and wrapped by the monotone chain; int64 arithmetic throughout.
__device__ long long cross3(long long ox, long long oy, long long ax, long long ay, long long bx, long long by) {
    return (ax - ox) * (by - oy) - (ay - oy) * (bx - ox);
}

__global__ void hull_area_naive(int sets, int m, const int* px, const int* py, double* area) {
    int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= sets) return;
    long long x[64], y[64], hx[129], hy[129];
    for (int t = 0; t < m; ++t) {
        long long a = px[(long long)s * m + t], b = py[(long long)s * m + t];
        int u = t;
        while (u > 0 && (x[u - 1] > a || (x[u - 1] == a && y[u - 1] > b))) {
            x[u] = x[u - 1];
            y[u] = y[u - 1];
            --u;
        }
        x[u] = a;
        y[u] = b;
    }
    int k = 0;
    for (int t = 0; t < m; ++t) {
        while (k >= 2 && cross3(hx[k - 2], hy[k - 2], hx[k - 1], hy[k - 1], x[t], y[t]) <= 0) --k;
        hx[k] = x[t];
        hy[k] = y[t];
        ++k;
    }
    for (int t = m - 2, lower = k + 1; t >= 0; --t) {
        while (k >= lower && cross3(hx[k - 2], hy[k - 2], hx[k - 1], hy[k - 1], x[t], y[t]) <= 0) --k;
        hx[k] = x[t];
        hy[k] = y[t];
        ++k;
    }
    long long twice = 0;
    for (int t = 0; t + 1 < k; ++t) twice += hx[t] * hy[t + 1] - hx[t + 1] * hy[t];
    area[s] = m < 3 ? 0.0 : 0.5 * (double)twice;
}

void convex_hull_area_batch(int sets, int m, const int* px, const int* py, double* area) {
    if (sets <= 0) return;
    hull_area_naive<<<(sets + 127) / 128, 128>>>(sets, m, px, py, area);
}
