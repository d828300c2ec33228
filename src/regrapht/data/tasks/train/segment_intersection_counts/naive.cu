// One thread per segment i, testing it against every other segment with the exact predicates.
__device__ int orient(long long ax, long long ay, long long bx, long long by, long long cx, long long cy) {
    long long v = (bx - ax) * (cy - ay) - (by - ay) * (cx - ax);
    return (v > 0) - (v < 0);
}

__device__ bool on_segment(long long ax, long long ay, long long bx, long long by, long long cx, long long cy) {
    return cx >= min(ax, bx) && cx <= max(ax, bx) && cy >= min(ay, by) && cy <= max(ay, by);
}

__device__ bool meet(long long ax, long long ay, long long bx, long long by, long long cx, long long cy,
                     long long dx, long long dy) {
    int o1 = orient(ax, ay, bx, by, cx, cy), o2 = orient(ax, ay, bx, by, dx, dy);
    int o3 = orient(cx, cy, dx, dy, ax, ay), o4 = orient(cx, cy, dx, dy, bx, by);
    if (o1 != o2 && o3 != o4) return true;
    if (o1 == 0 && on_segment(ax, ay, bx, by, cx, cy)) return true;
    if (o2 == 0 && on_segment(ax, ay, bx, by, dx, dy)) return true;
    if (o3 == 0 && on_segment(cx, cy, dx, dy, ax, ay)) return true;
    if (o4 == 0 && on_segment(cx, cy, dx, dy, bx, by)) return true;
    return false;
}

__global__ void seg_count_naive(int n, const int* x0, const int* y0, const int* x1, const int* y1, int* count) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int c = 0;
    for (int j = 0; j < n; ++j)
        if (j != i && meet(x0[i], y0[i], x1[i], y1[i], x0[j], y0[j], x1[j], y1[j])) ++c;
    count[i] = c;
}

void segment_intersection_counts(int n, const int* x0, const int* y0, const int* x1, const int* y1, int* count) {
    if (n <= 0) return;
    seg_count_naive<<<(n + 127) / 128, 128>>>(n, x0, y0, x1, y1, count);
}
