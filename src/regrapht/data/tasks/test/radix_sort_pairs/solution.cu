// steps: parallelize, algorithmic_change, atomic_privatization, thread_coarsening, shared_memory_tiling, library_primitive, warp_aggregated_atomics, loop_unrolling, read_only_cache
// Parallel LSD radix sort, 8 bits per pass, four passes ping-ponging through a scratch buffer.
// Per pass: (1) each 4096-element tile builds its 256-bin digit histogram in shared memory and
// stores it digit-major (counts[digit * tiles + tile]); (2) one CUB exclusive scan over those
// counts gives every (digit, tile) its first output slot, which encodes both the digit order and
// the tile order; (3) each tile is re-read, every warp owns a contiguous 512-element slice (16
// items per lane), ranks each element among equal digits with __match_any_sync and warp-private
// shared counters, and places it at its digit's slot in the tile + offset of earlier warps + rank
// (stable by construction), sorting the tile by digit in shared memory; the sorted tile then goes
// out with consecutive threads on consecutive slots of each digit's run (its global start from the
// scan), instead of a lane per scattered sector.
#include <cub/cub.cuh>

constexpr int kRadix = 256;
constexpr int kThreads = 256;  // == kRadix: one digit per thread in the per-digit steps
constexpr int kWarps = kThreads / 32;
constexpr int kItems = 16;
constexpr int kTile = kThreads * kItems;
constexpr int kWarpTile = 32 * kItems;

__global__ void __launch_bounds__(kThreads)
    tile_histogram(int n, int shift, int tiles, const unsigned int* __restrict__ keys, unsigned int* __restrict__ counts) {
    __shared__ unsigned int hist[kRadix];
    hist[threadIdx.x] = 0;
    __syncthreads();
    const long long base = static_cast<long long>(blockIdx.x) * kTile;
#pragma unroll
    for (int k = 0; k < kItems; ++k) {
        const long long i = base + k * kThreads + threadIdx.x;
        if (i < n) atomicAdd(&hist[(__ldg(keys + i) >> shift) & 0xFFu], 1u);
    }
    __syncthreads();
    counts[static_cast<long long>(threadIdx.x) * tiles + blockIdx.x] = hist[threadIdx.x];
}

__global__ void __launch_bounds__(kThreads)
    tile_scatter(int n, int shift, int tiles, const unsigned int* __restrict__ keys_in, const int* __restrict__ vals_in,
                 const unsigned int* __restrict__ offsets, unsigned int* __restrict__ keys_out, int* __restrict__ vals_out) {
    __shared__ unsigned int warp_count[kWarps][kRadix];
    __shared__ unsigned int tile_start[kRadix];  // the (digit, tile) run's first global slot
    __shared__ unsigned int local_start[kRadix];  // its first slot in the tile, sorted by digit
    __shared__ unsigned int digit_warp_sums[kWarps];
    __shared__ unsigned int staged_keys[kTile];
    __shared__ int staged_vals[kTile];
    for (int j = threadIdx.x; j < kWarps * kRadix; j += kThreads) (&warp_count[0][0])[j] = 0;
    __syncthreads();

    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const unsigned int lanes_below = (1u << lane) - 1u;
    const long long slice = static_cast<long long>(blockIdx.x) * kTile + warp * kWarpTile;
    unsigned int key[kItems], rank[kItems];
    int val[kItems];
#pragma unroll
    for (int it = 0; it < kItems; ++it) {
        const long long i = slice + it * 32 + lane;
        const bool ok = i < n;
        key[it] = ok ? __ldg(keys_in + i) : 0u;
        val[it] = ok ? __ldg(vals_in + i) : 0;
        const unsigned int digit = ok ? (key[it] >> shift) & 0xFFu : kRadix;  // kRadix: padding, never stored
        const unsigned int peers = __match_any_sync(0xffffffffu, digit);
        rank[it] = ok ? warp_count[warp][digit] + __popc(peers & lanes_below) : 0u;
        __syncwarp();
        if (ok && (peers & lanes_below) == 0) warp_count[warp][digit] += __popc(peers);  // the group's lowest lane
        __syncwarp();
    }
    __syncthreads();
    {
        const int d = threadIdx.x;  // exclusive prefix over warps for digit d, and the tile's global slot
        unsigned int running = 0;
#pragma unroll
        for (int w = 0; w < kWarps; ++w) {
            const unsigned int c = warp_count[w][d];
            warp_count[w][d] = running;
            running += c;
        }
        tile_start[d] = offsets[static_cast<long long>(d) * tiles + blockIdx.x];
        // exclusive scan of the tile's digit totals (one digit per thread): warp shuffles, then warp sums
        unsigned int inclusive = running;
#pragma unroll
        for (int o = 1; o < 32; o <<= 1) {
            const unsigned int below = __shfl_up_sync(0xffffffffu, inclusive, o);
            if (lane >= o) inclusive += below;
        }
        if (lane == 31) digit_warp_sums[warp] = inclusive;
        __syncthreads();
        unsigned int before = 0;
        for (int w = 0; w < warp; ++w) before += digit_warp_sums[w];
        local_start[d] = before + inclusive - running;
    }
    __syncthreads();
    // the tile sorted by digit in shared memory, so that the global stores below run along each
    // digit's slots: consecutive threads, consecutive addresses (the stores straight from the
    // ranking touched a sector per lane)
#pragma unroll
    for (int it = 0; it < kItems; ++it) {
        const long long i = slice + it * 32 + lane;
        if (i < n) {
            const unsigned int digit = (key[it] >> shift) & 0xFFu;
            const unsigned int local = local_start[digit] + warp_count[warp][digit] + rank[it];
            staged_keys[local] = key[it];
            staged_vals[local] = val[it];
        }
    }
    __syncthreads();
    const long long base = static_cast<long long>(blockIdx.x) * kTile;
    const int valid = static_cast<int>(min(static_cast<long long>(kTile), n - base));
#pragma unroll
    for (int it = 0; it < kItems; ++it) {
        const int local = it * kThreads + threadIdx.x;
        if (local < valid) {
            const unsigned int k = staged_keys[local], digit = (k >> shift) & 0xFFu;
            const unsigned int pos = tile_start[digit] + (local - local_start[digit]);
            keys_out[pos] = k;
            vals_out[pos] = staged_vals[local];
        }
    }
}

void radix_sort_pairs(int n, const unsigned int* keys, const int* values, unsigned int* sorted_keys,
                      int* sorted_values) {
    if (n <= 0) return;
    const int tiles = (n + kTile - 1) / kTile;
    const int count_items = kRadix * tiles;
    static unsigned int* tmp_keys = nullptr;
    static int* tmp_vals = nullptr;
    static unsigned int* counts = nullptr;
    static void* scan_temp = nullptr;
    static int n_cap = 0, count_cap = 0;
    static size_t scan_cap = 0;
    if (n > n_cap) {
        if (tmp_keys) cudaFree(tmp_keys);
        if (tmp_vals) cudaFree(tmp_vals);
        cudaMalloc(&tmp_keys, static_cast<size_t>(n) * sizeof(unsigned int));
        cudaMalloc(&tmp_vals, static_cast<size_t>(n) * sizeof(int));
        n_cap = n;
    }
    if (count_items > count_cap) {
        if (counts) cudaFree(counts);
        cudaMalloc(&counts, static_cast<size_t>(count_items) * sizeof(unsigned int));
        count_cap = count_items;
    }
    size_t scan_bytes = 0;
    cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, counts, counts, count_items);
    if (scan_bytes > scan_cap) {
        if (scan_temp) cudaFree(scan_temp);
        cudaMalloc(&scan_temp, scan_bytes);
        scan_cap = scan_bytes;
    }
    const unsigned int* src_keys = keys;
    const int* src_vals = values;
    for (int pass = 0; pass < 4; ++pass) {
        const int shift = 8 * pass;
        unsigned int* dst_keys = (pass % 2 == 0) ? tmp_keys : sorted_keys;  // ends in the output
        int* dst_vals = (pass % 2 == 0) ? tmp_vals : sorted_values;
        tile_histogram<<<tiles, kThreads>>>(n, shift, tiles, src_keys, counts);
        cub::DeviceScan::ExclusiveSum(scan_temp, scan_bytes, counts, counts, count_items);
        tile_scatter<<<tiles, kThreads>>>(n, shift, tiles, src_keys, src_vals, counts, dst_keys, dst_vals);
        src_keys = dst_keys;
        src_vals = dst_vals;
    }
}
