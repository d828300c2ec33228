// A direct port: one thread per query, binary search over the knots in global memory.
__global__ void interp_kernel(int knots, int n, const float* knot_x, const float* knot_y, const float* x, float* y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float q = x[i];
    if (!(q >= knot_x[0])) {
        y[i] = knot_y[0];
        return;
    }
    if (q >= knot_x[knots - 1]) {
        y[i] = knot_y[knots - 1];
        return;
    }
    int lo = 0, hi = knots - 1;
    while (hi - lo > 1) {
        const int mid = (lo + hi) / 2;
        if (knot_x[mid] <= q) lo = mid;
        else hi = mid;
    }
    const float t = (q - knot_x[lo]) / (knot_x[hi] - knot_x[lo]);
    y[i] = knot_y[lo] + t * (knot_y[hi] - knot_y[lo]);
}

void interp1d_table(int knots, int n, const float* knot_x, const float* knot_y, const float* x, float* y) {
    if (n > 0) interp_kernel<<<(n + 255) / 256, 256>>>(knots, n, knot_x, knot_y, x, y);
}
