// steps: work_decomposition, algorithmic_change, register_tiling, read_only_cache, loop_unrolling, warp_divergence_elimination
// A warp per pair sweeps the band by anti-diagonals d = i + j: the cells of one anti-diagonal are
// independent, and on it the band holds at most 32 cells of one parity of e = i - j. Lane l owns e = 2l -
// 31 on odd diagonals and e = 2l - 30 on even ones, so D(i-1, j-1) (diagonal d-2, same e) is the lane's own
// value two diagonals back, and D(i-1, j), D(i, j-1) (diagonal d-1, e -+ 1) are its own or its neighbour's
// previous value: one shuffle per diagonal, the whole band in two registers per lane instead of two local-
// memory rows per thread. Diagonals are processed in (odd, even) pairs, so the parity and the shuffle
// direction are fixed in the code, and the pair loop is unrolled twice. Cells outside the band or the
// series hold +inf and every lane runs the same instructions. The cost |a_i - b_j| reads the series through
// the read-only cache; a lane's i and j each advance by one every two diagonals.
#define LANES 32
#define WARPS_PER_BLOCK 4

__device__ __forceinline__ float band_cell(int d, int e, int n, int radius, const float* __restrict__ x,
                                           const float* __restrict__ y, float up, float left, float diag) {
    int i = (d + e) >> 1, j = (d - e) >> 1;
    bool inside = abs(e) <= radius && i >= 0 && j >= 0 && i < n && j < n;
    float cost = inside ? fabsf(__ldg(x + i) - __ldg(y + j)) : 0.0f;
    float best = (d == 0) ? 0.0f : fminf(fminf(up, left), diag);
    return inside ? cost + best : INFINITY;
}

__global__ void dtw_wavefront(int batch, int n, int radius, const float* __restrict__ a, const float* __restrict__ b,
                              float* __restrict__ dist) {
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) / LANES;
    int lane = threadIdx.x % LANES;
    if (warp >= batch) return;  // whole warps leave together
    const float* x = a + (long long)warp * n;
    const float* y = b + (long long)warp * n;
    const float inf = INFINITY;
    // p1: this lane's value on the previous diagonal, p2: two diagonals back
    float p1 = inf, p2 = inf;
    int last = 2 * n - 2;
    // diagonal 0 (even) first, then (odd, even) pairs
    {
        float v = band_cell(0, 2 * lane - 30, n, radius, x, y, inf, inf, inf);
        p2 = p1;
        p1 = v;
    }
    // the last diagonal, 2n - 2, is even: the (odd, even) pairs end exactly on it
#pragma unroll 2
    for (int d = 1; d < last; d += 2) {
        // odd diagonal: e = 2l - 31; up from lane l-1's previous value, left from this lane's
        float from_below = __shfl_up_sync(0xffffffffu, p1, 1);
        float up = lane > 0 ? from_below : inf;
        float v = band_cell(d, 2 * lane - 31, n, radius, x, y, up, p1, p2);
        p2 = p1;
        p1 = v;
        // even diagonal: e = 2l - 30; up from this lane, left from lane l+1
        float from_above = __shfl_down_sync(0xffffffffu, p1, 1);
        float left = lane < LANES - 1 ? from_above : inf;
        v = band_cell(d + 1, 2 * lane - 30, n, radius, x, y, p1, left, p2);
        p2 = p1;
        p1 = v;
    }
    // D(n-1, n-1) lies on the even diagonal 2n-2 at e = 0: lane 15, the last value computed
    if (lane == 15) dist[warp] = p1;
}

void dtw_band_batch(int batch, int n, int radius, const float* a, const float* b, float* dist) {
    if (batch <= 0) return;
    int blocks = (batch + WARPS_PER_BLOCK - 1) / WARPS_PER_BLOCK;
    dtw_wavefront<<<blocks, WARPS_PER_BLOCK * LANES>>>(batch, n, radius, a, b, dist);
}
