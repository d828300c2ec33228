// steps: parallelize, work_decomposition, memory_coalescing, thread_coarsening, algorithmic_change, block_tree_reduction, warp_shuffle_reduction
// Two kernels. (1) The matrix is cut into 32-column tiles x row chunks; in a (32 x 8) block a warp
// reads 32 consecutive columns of one row (coalesced) and each thread walks hundreds of rows of its
// column, accumulating sums of (x - K) and (x - K)^2 (in double: cheap here) around a per-column shift K (the
// column's first value) instead of a division per element. Each thread turns its sums into a
// (count, mean, M2) triple in double; the 8 row-lanes are merged with Chan's formula in a shared
// memory tree, giving one partial per (chunk, column). (2) One warp per column merges the chunk
// partials, lanes first, then across lanes with shuffles.
constexpr int kTileCols = 32;
constexpr int kRowLanes = 8;

struct Moments {
    double n, mean, m2;
    float lo, hi;
};

__device__ __forceinline__ Moments merge(const Moments& a, const Moments& b) {
    if (a.n == 0.0) return b;
    if (b.n == 0.0) return a;
    Moments m;
    m.n = a.n + b.n;
    const double delta = b.mean - a.mean;
    m.mean = a.mean + delta * (b.n / m.n);
    m.m2 = a.m2 + b.m2 + delta * delta * (a.n * b.n / m.n);
    m.lo = fminf(a.lo, b.lo);
    m.hi = fmaxf(a.hi, b.hi);
    return m;
}

__global__ void __launch_bounds__(kTileCols* kRowLanes)
    chunk_moments(int rows, int cols, int rows_per_chunk, const float* __restrict__ data, double* __restrict__ p_n,
                  double* __restrict__ p_mean, double* __restrict__ p_m2, float* __restrict__ p_lo,
                  float* __restrict__ p_hi) {
    __shared__ double s_n[kRowLanes][kTileCols], s_mean[kRowLanes][kTileCols], s_m2[kRowLanes][kTileCols];
    __shared__ float s_lo[kRowLanes][kTileCols], s_hi[kRowLanes][kTileCols];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int c = blockIdx.x * kTileCols + tx;
    const bool valid = c < cols;
    const int r0 = blockIdx.y * rows_per_chunk;
    const int r1 = min(rows, r0 + rows_per_chunk);

    const float shift = valid ? __ldg(data + c) : 0.0f;
    double s1 = 0.0, s2 = 0.0;  // two DFMAs per element are far below the memory roofline
    float lo = INFINITY, hi = -INFINITY;
    int count = 0;
    if (valid) {
        for (int r = r0 + ty; r < r1; r += kRowLanes) {
            const float v = __ldg(data + static_cast<long long>(r) * cols + c);
            const float d = v - shift;
            s1 += d;
            s2 = fma(static_cast<double>(d), static_cast<double>(d), s2);
            lo = fminf(lo, v);
            hi = fmaxf(hi, v);
            ++count;
        }
    }
    Moments m;
    m.n = count;
    m.mean = count ? shift + s1 / count : 0.0;
    m.m2 = count ? fmax(0.0, s2 - s1 * s1 / count) : 0.0;
    m.lo = lo;
    m.hi = hi;
    s_n[ty][tx] = m.n;
    s_mean[ty][tx] = m.mean;
    s_m2[ty][tx] = m.m2;
    s_lo[ty][tx] = m.lo;
    s_hi[ty][tx] = m.hi;
    __syncthreads();
    for (int half = kRowLanes / 2; half > 0; half >>= 1) {
        if (ty < half) {
            const Moments a = {s_n[ty][tx], s_mean[ty][tx], s_m2[ty][tx], s_lo[ty][tx], s_hi[ty][tx]};
            const Moments b = {s_n[ty + half][tx], s_mean[ty + half][tx], s_m2[ty + half][tx], s_lo[ty + half][tx],
                               s_hi[ty + half][tx]};
            const Moments r = merge(a, b);
            s_n[ty][tx] = r.n;
            s_mean[ty][tx] = r.mean;
            s_m2[ty][tx] = r.m2;
            s_lo[ty][tx] = r.lo;
            s_hi[ty][tx] = r.hi;
        }
        __syncthreads();
    }
    if (ty == 0 && valid) {
        const long long at = static_cast<long long>(blockIdx.y) * cols + c;
        p_n[at] = s_n[0][tx];
        p_mean[at] = s_mean[0][tx];
        p_m2[at] = s_m2[0][tx];
        p_lo[at] = s_lo[0][tx];
        p_hi[at] = s_hi[0][tx];
    }
}

__global__ void finalize_columns(int rows, int cols, int chunks, const double* __restrict__ p_n,
                                 const double* __restrict__ p_mean, const double* __restrict__ p_m2,
                                 const float* __restrict__ p_lo, const float* __restrict__ p_hi, float* mean,
                                 float* stddev, float* col_min, float* col_max) {
    const int lane = threadIdx.x & 31;
    const int c = blockIdx.x * (blockDim.x / 32) + (threadIdx.x >> 5);
    if (c >= cols) return;  // whole warps leave together
    Moments acc = {0.0, 0.0, 0.0, INFINITY, -INFINITY};
    for (int k = lane; k < chunks; k += 32) {
        const long long at = static_cast<long long>(k) * cols + c;
        const Moments m = {p_n[at], p_mean[at], p_m2[at], p_lo[at], p_hi[at]};
        acc = merge(acc, m);
    }
    for (int offset = 16; offset > 0; offset >>= 1) {
        Moments other;
        other.n = __shfl_xor_sync(0xffffffffu, acc.n, offset);
        other.mean = __shfl_xor_sync(0xffffffffu, acc.mean, offset);
        other.m2 = __shfl_xor_sync(0xffffffffu, acc.m2, offset);
        other.lo = __shfl_xor_sync(0xffffffffu, acc.lo, offset);
        other.hi = __shfl_xor_sync(0xffffffffu, acc.hi, offset);
        acc = merge(acc, other);
    }
    if (lane == 0) {
        mean[c] = static_cast<float>(acc.mean);
        stddev[c] = rows > 1 ? static_cast<float>(sqrt(acc.m2 / (rows - 1))) : 0.0f;
        col_min[c] = acc.lo;
        col_max[c] = acc.hi;
    }
}

void column_stats(int rows, int cols, const float* data, float* mean, float* stddev, float* col_min, float* col_max) {
    if (cols <= 0) return;
    static int target_blocks = 0;
    if (target_blocks == 0) {
        int device = 0, sms = 0;
        cudaGetDevice(&device);
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
        target_blocks = sms * 8;
    }
    const int col_tiles = (cols + kTileCols - 1) / kTileCols;
    int chunks = (target_blocks + col_tiles - 1) / col_tiles;
    const int max_chunks = (rows + 255) / 256;  // keep at least ~32 rows per thread
    if (chunks > max_chunks) chunks = max_chunks;
    if (chunks < 1) chunks = 1;
    const int rows_per_chunk = rows > 0 ? (rows + chunks - 1) / chunks : 0;

    static double* buf = nullptr;
    static size_t capacity = 0;
    const size_t entries = static_cast<size_t>(chunks) * cols;
    const size_t bytes = entries * (3 * sizeof(double) + 2 * sizeof(float));
    if (bytes > capacity) {
        if (buf) cudaFree(buf);
        cudaMalloc(&buf, bytes);
        capacity = bytes;
    }
    double* p_n = buf;
    double* p_mean = p_n + entries;
    double* p_m2 = p_mean + entries;
    float* p_lo = reinterpret_cast<float*>(p_m2 + entries);
    float* p_hi = p_lo + entries;

    chunk_moments<<<dim3(col_tiles, chunks), dim3(kTileCols, kRowLanes)>>>(rows, cols, rows_per_chunk, data, p_n,
                                                                         p_mean, p_m2, p_lo, p_hi);
    const int warps_per_block = 8;
    finalize_columns<<<(cols + warps_per_block - 1) / warps_per_block, 32 * warps_per_block>>>(
        rows, cols, chunks, p_n, p_mean, p_m2, p_lo, p_hi, mean, stddev, col_min, col_max);
}
