// steps: parallelize, work_decomposition, shared_memory_tiling, register_tiling, bank_conflict_avoidance, loop_unrolling, read_only_cache
// A block (4 warps) owns one signal pair and a tile of 256 lags. The signals stream through shared
// memory in chunks of 1024 samples (zero past the end, so no bounds tests in the inner loop); inside a
// chunk each warp takes a quarter of the samples, and each lane accumulates 8 consecutive lags in
// registers with a sliding register window over y (one shared load per 8 FMAs). The y chunk uses a
// skewed index (p + p/8) so the lanes' stride-8 reads hit 32 different banks. At the end the four
// warps' partial sums are combined in shared memory and scaled by 1/n.
constexpr int WARPS = 4;
constexpr int THREADS = WARPS * 32;
constexpr int J = 8;               // lags per lane
constexpr int LAG_TILE = 32 * J;   // 256 lags per block
constexpr int CHUNK = 1024;        // samples per shared-memory chunk
constexpr int SUB = CHUNK / WARPS; // samples per warp per chunk
constexpr int YLEN = CHUNK + LAG_TILE;

__device__ __forceinline__ int skew(int p) { return p + (p >> 3); }

__global__ void __launch_bounds__(THREADS) xcorr_tiled(int pairs, int n, int lags, const float* __restrict__ x,
                                                       const float* __restrict__ y, float* __restrict__ r) {
    __shared__ float xs[CHUNK];
    __shared__ float ys[YLEN + YLEN / 8 + 1];
    __shared__ float partial[WARPS][LAG_TILE];
    const int p = blockIdx.y;
    const int lag0 = blockIdx.x * LAG_TILE;
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const float* xp = x + static_cast<long long>(p) * n;
    const float* yp = y + static_cast<long long>(p) * n;
    float acc[J];
#pragma unroll
    for (int j = 0; j < J; ++j) acc[j] = 0.0f;

    for (int i0 = 0; i0 < n; i0 += CHUNK) {
        __syncthreads();
        for (int c = threadIdx.x; c < CHUNK; c += THREADS) xs[c] = (i0 + c < n) ? xp[i0 + c] : 0.0f;
        for (int c = threadIdx.x; c < YLEN; c += THREADS) {
            const long long g = static_cast<long long>(i0) + lag0 + c;
            ys[skew(c)] = (g < n) ? yp[g] : 0.0f;
        }
        __syncthreads();
        const int c0 = warp * SUB;
        const int base = c0 + lane * J;  // y offset of this lane's first lag at sample c0
        float win[J];
#pragma unroll
        for (int j = 0; j < J; ++j) win[j] = ys[skew(base + j)];
#pragma unroll 4
        for (int c = 0; c < SUB; ++c) {
            const float xi = xs[c0 + c];
#pragma unroll
            for (int j = 0; j < J; ++j) acc[j] += xi * win[j];
#pragma unroll
            for (int j = 0; j < J - 1; ++j) win[j] = win[j + 1];
            win[J - 1] = ys[skew(base + c + J)];
        }
    }
    // Combine the warps' partial sums.
#pragma unroll
    for (int j = 0; j < J; ++j) partial[warp][lane * J + j] = acc[j];
    __syncthreads();
    const float inv_n = 1.0f / static_cast<float>(n);
    for (int t = threadIdx.x; t < LAG_TILE; t += THREADS) {
        const int l = lag0 + t;
        if (l < lags) {
            float sum = 0.0f;
#pragma unroll
            for (int w = 0; w < WARPS; ++w) sum += partial[w][t];
            r[static_cast<long long>(p) * lags + l] = sum * inv_n;
        }
    }
}

void xcorr_batched(int pairs, int n, int lags, const float* x, const float* y, float* r) {
    if (pairs <= 0 || lags <= 0) return;
    dim3 grid((lags + LAG_TILE - 1) / LAG_TILE, pairs);
    xcorr_tiled<<<grid, THREADS>>>(pairs, n, lags, x, y, r);
}
