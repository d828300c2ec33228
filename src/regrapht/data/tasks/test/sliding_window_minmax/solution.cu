// steps: shared_memory_tiling, algorithmic_change, work_decomposition
// The van Herk / Gil-Werman algorithm: O(1) compares per output instead of O(win). A block owns TILE
// outputs of one row and stages the TILE + win - 1 samples they need in shared memory (samples before
// the row's start are +inf / -inf, which clips the window). The span is cut into segments of win
// samples; within each segment a thread forms the running extremum from the left (prefix) and from
// the right (suffix). The window ending at local output t starts at local sample t and spans at most
// two segments, so its extremum is op(suffix[t], prefix[t + win - 1]).
#define TILE 2048
#define MAX_WIN 255
#define SPAN (TILE + MAX_WIN - 1)
#define THREADS 256

__global__ void window_vhgw(int n, int win, int tiles_per_row, const float* __restrict__ x, float* __restrict__ lo,
                            float* __restrict__ hi) {
    __shared__ float pre_lo[SPAN], suf_lo[SPAN], pre_hi[SPAN], suf_hi[SPAN];
    int row = blockIdx.x / tiles_per_row;
    int first = (blockIdx.x % tiles_per_row) * TILE;  // first output of this tile
    const float* src = x + (long long)row * n;
    int span = min(TILE, n - first) + win - 1;
    int base = first - win + 1;  // sample index of local position 0
    for (int p = threadIdx.x; p < span; p += THREADS) {
        int i = base + p;
        bool inside = i >= 0;
        float v = inside ? src[i] : 0.0f;
        pre_lo[p] = suf_lo[p] = inside ? v : INFINITY;
        pre_hi[p] = suf_hi[p] = inside ? v : -INFINITY;
    }
    __syncthreads();
    // four independent running extrema per segment (prefix/suffix x min/max), one thread each: the
    // sequential chains are win long, and four times as many threads share them. Consecutive threads
    // take the same kind, so a warp runs one or two of the four loops, not all four.
    int segments = (span + win - 1) / win;
    for (int s = threadIdx.x; s < 4 * segments; s += THREADS) {
        int kind = s / segments, seg = s % segments;
        int a = seg * win, b = min(a + win, span);
        if (kind == 0) {
            for (int p = a + 1; p < b; ++p) pre_lo[p] = fminf(pre_lo[p - 1], pre_lo[p]);
        } else if (kind == 1) {
            for (int p = a + 1; p < b; ++p) pre_hi[p] = fmaxf(pre_hi[p - 1], pre_hi[p]);
        } else if (kind == 2) {
            for (int p = b - 2; p >= a; --p) suf_lo[p] = fminf(suf_lo[p + 1], suf_lo[p]);
        } else {
            for (int p = b - 2; p >= a; --p) suf_hi[p] = fmaxf(suf_hi[p + 1], suf_hi[p]);
        }
    }
    __syncthreads();
    int outputs = span - win + 1;
    long long out0 = (long long)row * n + first;
    for (int t = threadIdx.x; t < outputs; t += THREADS) {
        lo[out0 + t] = fminf(suf_lo[t], pre_lo[t + win - 1]);
        hi[out0 + t] = fmaxf(suf_hi[t], pre_hi[t + win - 1]);
    }
}

void sliding_window_minmax(int rows, int n, int win, const float* x, float* lo, float* hi) {
    if (rows <= 0 || n <= 0) return;
    int tiles_per_row = (n + TILE - 1) / TILE;
    long long blocks = (long long)rows * tiles_per_row;
    window_vhgw<<<(unsigned)blocks, THREADS>>>(n, win, tiles_per_row, x, lo, hi);
}
