// steps: parallelize, warp_shuffle_reduction, shared_memory_tiling, thread_coarsening, bank_conflict_avoidance
// Reduce-then-scan over tiles of 4096 elements (256 threads x 16). Pass 1 counts each tile's run
// heads with coalesced reads and a warp-shuffle block sum. Pass 2, one block, scans the tile counts
// into tile offsets and writes the run count. Pass 3 stages its tile in shared memory (padded, so
// the per-thread runs of 16 consecutive elements read without bank conflicts), each thread counts
// the heads among its 16, a block-wide shuffle scan gives every thread its first run slot, and the
// thread writes its heads' values and starts. Pass 4 turns starts into lengths. Global traffic is a
// few passes over the data instead of one per power of two.
constexpr int kThreads = 256;
constexpr int kItems = 16;
constexpr int kTile = kThreads * kItems;
constexpr int kScanThreads = 1024;

__host__ __device__ constexpr int pad(int i) { return i + (i >> 5); }

// Inclusive block-wide sum scan of one value per thread (kThreads threads); total gets the sum.
__device__ __forceinline__ int block_inclusive_scan(int x, int* warp_sums, int& total) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
        const int y = __shfl_up_sync(0xffffffffu, x, d);
        if (lane >= d) x += y;
    }
    if (lane == 31) warp_sums[warp] = x;
    __syncthreads();
    if (warp == 0) {
        int w = lane < warps ? warp_sums[lane] : 0;
#pragma unroll
        for (int d = 1; d < 32; d <<= 1) {
            const int y = __shfl_up_sync(0xffffffffu, w, d);
            if (lane >= d) w += y;
        }
        if (lane < warps) warp_sums[lane] = w;
    }
    __syncthreads();
    total = warp_sums[warps - 1];
    const int result = x + (warp > 0 ? warp_sums[warp - 1] : 0);
    __syncthreads();  // warp_sums may be reused by the caller's next scan
    return result;
}

__global__ void __launch_bounds__(kThreads) rle_count_tiles(int n, const int* __restrict__ values,
                                                            int* __restrict__ tile_counts) {
    __shared__ int warp_sums[32];
    const long long base = static_cast<long long>(blockIdx.x) * kTile;
    int heads = 0;
#pragma unroll 4
    for (int k = 0; k < kItems; ++k) {
        const long long i = base + k * kThreads + threadIdx.x;
        if (i < n) heads += (i == 0 || values[i] != values[i - 1]) ? 1 : 0;
    }
    int total = 0;
    block_inclusive_scan(heads, warp_sums, total);
    if (threadIdx.x == 0) tile_counts[blockIdx.x] = total;
}

__global__ void __launch_bounds__(kScanThreads) rle_scan_tiles(int tiles, int* tile_offsets, int* num_runs) {
    __shared__ int warp_sums[32];
    __shared__ int carry;
    if (threadIdx.x == 0) carry = 0;
    __syncthreads();
    for (int start = 0; start < tiles; start += kScanThreads) {
        const int t = start + threadIdx.x;
        const int x = t < tiles ? tile_offsets[t] : 0;
        int total = 0;
        const int inclusive = block_inclusive_scan(x, warp_sums, total);
        if (t < tiles) tile_offsets[t] = carry + inclusive - x;
        __syncthreads();
        if (threadIdx.x == 0) carry += total;
        __syncthreads();
    }
    if (threadIdx.x == 0) *num_runs = carry;
}

__global__ void __launch_bounds__(kThreads)
    rle_scatter_tiles(int n, const int* __restrict__ values, const int* __restrict__ tile_offsets,
                      int* __restrict__ run_values, int* __restrict__ starts) {
    __shared__ int tile[pad(kTile) + 1];
    __shared__ int warp_sums[32];
    __shared__ int before;  // the element just before the tile (or a value unequal to the first)
    const long long base = static_cast<long long>(blockIdx.x) * kTile;
    for (int k = 0; k < kItems; ++k) {
        const int local = k * kThreads + threadIdx.x;
        const long long i = base + local;
        if (i < n) tile[pad(local)] = values[i];
    }
    if (threadIdx.x == 0) before = base > 0 ? values[base - 1] : ~values[0];
    __syncthreads();

    const int first = threadIdx.x * kItems;
    const int count = static_cast<int>(min(static_cast<long long>(kItems), max(0LL, n - base - first)));
    int prev = first == 0 ? before : (count > 0 ? tile[pad(first - 1)] : 0);
    unsigned int head_mask = 0;
    for (int k = 0; k < count; ++k) {
        const int v = tile[pad(first + k)];
        if (v != prev) head_mask |= 1u << k;
        prev = v;
    }
    int total = 0;
    const int inclusive = block_inclusive_scan(__popc(head_mask), warp_sums, total);
    int slot = tile_offsets[blockIdx.x] + inclusive - __popc(head_mask);
    while (head_mask) {
        const int k = __ffs(head_mask) - 1;
        head_mask &= head_mask - 1;
        run_values[slot] = tile[pad(first + k)];
        starts[slot] = static_cast<int>(base + first + k);
        ++slot;
    }
}

__global__ void rle_lengths(int n, const int* __restrict__ starts, const int* __restrict__ num_runs,
                            int* __restrict__ run_lengths) {
    const int r = blockIdx.x * blockDim.x + threadIdx.x;
    const int runs = *num_runs;
    if (r < runs) run_lengths[r] = (r + 1 < runs ? starts[r + 1] : n) - starts[r];
}

void run_length_encode(int n, const int* values, int* run_values, int* run_lengths, int* num_runs) {
    if (n <= 0) return;
    const int tiles = (n + kTile - 1) / kTile;
    static int *starts = nullptr, *tile_offsets = nullptr;
    static int capacity = 0;
    if (n > capacity) {
        if (starts) {
            cudaFree(starts);
            cudaFree(tile_offsets);
        }
        cudaMalloc(&starts, static_cast<size_t>(n) * sizeof(int));
        cudaMalloc(&tile_offsets, static_cast<size_t>(tiles) * sizeof(int));
        capacity = n;
    }
    rle_count_tiles<<<tiles, kThreads>>>(n, values, tile_offsets);
    rle_scan_tiles<<<1, kScanThreads>>>(tiles, tile_offsets, num_runs);
    rle_scatter_tiles<<<tiles, kThreads>>>(n, values, tile_offsets, run_values, starts);
    rle_lengths<<<(n + 255) / 256, 256>>>(n, starts, num_runs, run_lengths);
}
