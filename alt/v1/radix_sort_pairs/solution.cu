// steps: parallelize, algorithmic_change, atomic_privatization, thread_coarsening, shared_memory_tiling, library_primitive, warp_aggregated_atomics, loop_unrolling, read_only_cache
// Most-significant digit first, then each bucket on chip: two passes over the pairs in DRAM where an
// LSD sort of 8-bit digits makes four. (1) Per 4096-element tile, a shared-memory histogram of the
// top 11 bits (2048 buckets), stored bucket-major, plus each bucket's total; one CUB exclusive scan
// over the counts gives every (bucket, tile) its first slot, which encodes bucket order and tile
// order. (2) A stable scatter of the pairs by bucket: each warp owns a contiguous 512-element slice,
// ranks each element among equal buckets with __match_any_sync and warp-private counters, and
// stores it at its (bucket, tile) slot + the earlier warps' count + its rank. (3) One block per
// bucket loads it into registers, sorts the low 21 bits stably in shared memory (three 7-bit LSD
// passes with the same ranking), and writes the sorted bucket back coalesced. Keys spanning all 32
// bits make the buckets ~n/2048 (4096 at the bench size, a few hundred either way with repeated
// keys); the host reads the 2048 bucket sizes while the scatter runs, and a bucket over the block's
// 8192 falls back to four 8-bit LSD passes (histogram, scan, rank-and-scatter per pass), so any
// key distribution sorts correctly.
// This variant: 512 threads a bucket, 16 pairs each, capped at 64 registers for two blocks a multiprocessor.
#include <cub/cub.cuh>

// ---- the fallback: stable LSD passes of 8 bits over the whole input ----
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


// ---- the fast path: one stable pass on the top 11 bits, then every bucket sorted on chip ----
constexpr int kMsdBits = 11;
constexpr int kBuckets = 1 << kMsdBits;       // 2048
constexpr int kLowBits = 32 - kMsdBits;       // 21 bits left for the bucket sort
constexpr int kMsdThreads = 256;
constexpr int kMsdItems = 16;
constexpr int kMsdTile = kMsdThreads * kMsdItems;  // 4096
constexpr int kLocalThreads = 512;
constexpr int kLocalItems = 16;
constexpr int kLocalCapacity = kLocalThreads * kLocalItems;  // 8192: twice the mean bucket at the bench size
constexpr int kLocalBits = 7;
constexpr int kLocalRadix = 1 << kLocalBits;
constexpr int kLocalPasses = (kLowBits + kLocalBits - 1) / kLocalBits;  // 3
constexpr int kLocalWarps = kLocalThreads / 32;

// per-tile histogram of the top bits, digit-major (counts[bucket * tiles + tile]), and each bucket's total
__global__ void __launch_bounds__(kMsdThreads)
    msd_histogram(int n, int tiles, const unsigned int* __restrict__ keys, unsigned int* __restrict__ counts,
                  unsigned int* __restrict__ bucket_size) {
    __shared__ unsigned int hist[kBuckets];
    for (int d = threadIdx.x; d < kBuckets; d += kMsdThreads) hist[d] = 0;
    __syncthreads();
    const long long base = static_cast<long long>(blockIdx.x) * kMsdTile;
#pragma unroll
    for (int k = 0; k < kMsdItems; ++k) {
        const long long i = base + k * kMsdThreads + threadIdx.x;
        if (i < n) atomicAdd(&hist[__ldg(keys + i) >> kLowBits], 1u);
    }
    __syncthreads();
    for (int d = threadIdx.x; d < kBuckets; d += kMsdThreads) {
        const unsigned int c = hist[d];
        counts[static_cast<long long>(d) * tiles + blockIdx.x] = c;
        if (c) atomicAdd(bucket_size + d, c);
    }
}

// the stable scatter by the top bits: a warp owns a contiguous 512-element slice (lane-striped),
// ranks each element among equal buckets with __match_any_sync and warp-private 16-bit counters,
// and places it at its (bucket, tile) slot from the scan + the earlier warps' + its rank
__global__ void __launch_bounds__(kMsdThreads)
    msd_scatter(int n, int tiles, const unsigned int* __restrict__ keys_in, const int* __restrict__ vals_in,
                const unsigned int* __restrict__ offsets, unsigned int* __restrict__ keys_out, int* __restrict__ vals_out) {
    constexpr int kWarpsHere = kMsdThreads / 32;
    __shared__ unsigned short warp_count[kWarpsHere][kBuckets];  // at most 512 a warp
    __shared__ unsigned int tile_start[kBuckets];
    for (int j = threadIdx.x; j < kWarpsHere * kBuckets; j += kMsdThreads) (&warp_count[0][0])[j] = 0;
    __syncthreads();
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const unsigned int lanes_below = (1u << lane) - 1u;
    const long long slice = static_cast<long long>(blockIdx.x) * kMsdTile + warp * (32 * kMsdItems);
    unsigned int key[kMsdItems], rank[kMsdItems];
    int val[kMsdItems];
#pragma unroll
    for (int it = 0; it < kMsdItems; ++it) {
        const long long i = slice + it * 32 + lane;
        const bool ok = i < n;
        key[it] = ok ? __ldg(keys_in + i) : 0u;
        val[it] = ok ? __ldg(vals_in + i) : 0;
        const unsigned int bucket = ok ? key[it] >> kLowBits : kBuckets;  // kBuckets: padding, never stored
        const unsigned int peers = __match_any_sync(0xffffffffu, bucket);
        rank[it] = ok ? warp_count[warp][bucket] + __popc(peers & lanes_below) : 0u;
        __syncwarp();
        if (ok && (peers & lanes_below) == 0) warp_count[warp][bucket] += __popc(peers);  // the group's lowest lane
        __syncwarp();
    }
    __syncthreads();
    for (int d = threadIdx.x; d < kBuckets; d += kMsdThreads) {
        unsigned int running = 0;
#pragma unroll
        for (int w = 0; w < kWarpsHere; ++w) {
            const unsigned int c = warp_count[w][d];
            warp_count[w][d] = static_cast<unsigned short>(running);
            running += c;
        }
        tile_start[d] = offsets[static_cast<long long>(d) * tiles + blockIdx.x];
    }
    __syncthreads();
#pragma unroll
    for (int it = 0; it < kMsdItems; ++it) {
        const long long i = slice + it * 32 + lane;
        if (i < n) {
            const unsigned int bucket = key[it] >> kLowBits;
            const unsigned int pos = tile_start[bucket] + warp_count[warp][bucket] + rank[it];
            keys_out[pos] = key[it];
            vals_out[pos] = val[it];
        }
    }
}

// One block per bucket (at most kLocalCapacity pairs): an LSD radix sort of the low 21 bits in
// shared memory, three stable 7-bit passes (ranks as above, then the pairs placed in shared
// memory and read back lane-striped), and one coalesced write of the sorted bucket. Padding keys
// have every low bit set and sit after the bucket's pairs: a stable sort keeps them last.
__global__ void __launch_bounds__(kLocalThreads, 2)
    bucket_sort(int tiles, const unsigned int* __restrict__ offsets, const unsigned int* __restrict__ bucket_size,
                const unsigned int* __restrict__ keys_in, const int* __restrict__ vals_in,
                unsigned int* __restrict__ keys_out, int* __restrict__ vals_out) {
    extern __shared__ unsigned int bucket_smem[];
    unsigned int* skeys = bucket_smem;                                   // kLocalCapacity
    int* svals = reinterpret_cast<int*>(bucket_smem + kLocalCapacity);  // kLocalCapacity
    __shared__ unsigned int warp_count[kLocalWarps][kLocalRadix];
    __shared__ unsigned int digit_start[kLocalRadix];
    __shared__ unsigned int scan_warp_sums[kLocalRadix / 32];
    const int size = static_cast<int>(bucket_size[blockIdx.x]);
    if (size == 0) return;
    const long long start = offsets[static_cast<long long>(blockIdx.x) * tiles];  // the bucket's first slot
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const unsigned int lanes_below = (1u << lane) - 1u;
    const int slice = warp * (32 * kLocalItems);
    unsigned int key[kLocalItems], rank[kLocalItems];
    int val[kLocalItems];
#pragma unroll
    for (int it = 0; it < kLocalItems; ++it) {
        const int e = slice + it * 32 + lane;
        key[it] = e < size ? __ldg(keys_in + start + e) : 0xffffffffu;
        val[it] = e < size ? __ldg(vals_in + start + e) : 0;
    }
#pragma unroll 1
    for (int pass = 0; pass < kLocalPasses; ++pass) {
        const int shift = pass * kLocalBits;
        for (int j = threadIdx.x; j < kLocalWarps * kLocalRadix; j += kLocalThreads) (&warp_count[0][0])[j] = 0;
        __syncthreads();
#pragma unroll
        for (int it = 0; it < kLocalItems; ++it) {
            const unsigned int digit = (key[it] >> shift) & (kLocalRadix - 1);
            const unsigned int peers = __match_any_sync(0xffffffffu, digit);
            rank[it] = warp_count[warp][digit] + __popc(peers & lanes_below);
            __syncwarp();
            if ((peers & lanes_below) == 0) warp_count[warp][digit] += __popc(peers);
            __syncwarp();
        }
        __syncthreads();
        if (threadIdx.x < kLocalRadix) {  // per digit: exclusive over the warps, then over the digits
            const int d = threadIdx.x;
            unsigned int running = 0;
#pragma unroll
            for (int w = 0; w < kLocalWarps; ++w) {
                const unsigned int c = warp_count[w][d];
                warp_count[w][d] = running;
                running += c;
            }
            unsigned int inclusive = running;
#pragma unroll
            for (int o = 1; o < 32; o <<= 1) {
                const unsigned int below = __shfl_up_sync(0xffffffffu, inclusive, o);
                if (lane >= o) inclusive += below;
            }
            if (lane == 31) scan_warp_sums[warp] = inclusive;
            digit_start[d] = inclusive - running;
        }
        __syncthreads();
        if (threadIdx.x < kLocalRadix) {
            unsigned int before = 0;
            for (int w = 0; w < warp; ++w) before += scan_warp_sums[w];
            digit_start[threadIdx.x] += before;
        }
        __syncthreads();
#pragma unroll
        for (int it = 0; it < kLocalItems; ++it) {
            const unsigned int digit = (key[it] >> shift) & (kLocalRadix - 1);
            const unsigned int pos = digit_start[digit] + warp_count[warp][digit] + rank[it];
            skeys[pos] = key[it];
            svals[pos] = val[it];
        }
        __syncthreads();
#pragma unroll
        for (int it = 0; it < kLocalItems; ++it) {
            const int e = slice + it * 32 + lane;
            key[it] = skeys[e];
            val[it] = svals[e];
        }
        __syncthreads();
    }
#pragma unroll
    for (int it = 0; it < kLocalItems; ++it) {
        const int e = slice + it * 32 + lane;
        if (e < size) {
            keys_out[start + e] = key[it];
            vals_out[start + e] = val[it];
        }
    }
}

template <typename T>
static bool grow(T** buffer, size_t* capacity, size_t count) {
    if (count <= *capacity) return true;
    if (*buffer) cudaFree(*buffer);
    *buffer = nullptr;
    *capacity = 0;
    if (cudaMalloc(buffer, count * sizeof(T)) != cudaSuccess) {
        *buffer = nullptr;  // asked again next call; the call writes nothing, which the checks reject
        return false;
    }
    *capacity = count;
    return true;
}

void radix_sort_pairs(int n, const unsigned int* keys, const int* values, unsigned int* sorted_keys,
                      int* sorted_values) {
    if (n <= 0) return;
    static unsigned int* tmp_keys = nullptr;
    static int* tmp_vals = nullptr;
    static unsigned int *counts = nullptr, *bucket_size = nullptr;
    static void* scan_temp = nullptr;
    static size_t key_cap = 0, val_cap = 0, count_cap = 0, bucket_cap = 0, scan_cap = 0;
    static bool attribute_set = false;
    // the fast path's tiles are larger than the fallback's: the counts buffer fits both
    const int msd_tiles = (n + kMsdTile - 1) / kMsdTile;
    const int lsd_tiles = (n + kTile - 1) / kTile;
    const size_t msd_counts = static_cast<size_t>(kBuckets) * msd_tiles, lsd_counts = static_cast<size_t>(kRadix) * lsd_tiles;
    const size_t count_items = msd_counts > lsd_counts ? msd_counts : lsd_counts;
    if (!grow(&tmp_keys, &key_cap, n) || !grow(&tmp_vals, &val_cap, n) || !grow(&counts, &count_cap, count_items) ||
        !grow(&bucket_size, &bucket_cap, kBuckets))
        return;
    size_t scan_bytes = 0;
    cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, counts, counts, static_cast<int>(count_items));
    if (!grow(reinterpret_cast<unsigned char**>(&scan_temp), &scan_cap, scan_bytes)) return;
    if (!attribute_set) {
        cudaFuncSetAttribute(bucket_sort, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             2 * kLocalCapacity * static_cast<int>(sizeof(unsigned int)));
        attribute_set = true;
    }

    cudaMemsetAsync(bucket_size, 0, kBuckets * sizeof(unsigned int));
    msd_histogram<<<msd_tiles, kMsdThreads>>>(n, msd_tiles, keys, counts, bucket_size);
    cub::DeviceScan::ExclusiveSum(scan_temp, scan_bytes, counts, counts, static_cast<int>(msd_counts));
    msd_scatter<<<msd_tiles, kMsdThreads>>>(n, msd_tiles, keys, values, counts, tmp_keys, tmp_vals);
    // the host needs the largest bucket to choose the path; the scatter is already queued, so the
    // wait overlaps it
    static unsigned int sizes[kBuckets];
    cudaMemcpy(sizes, bucket_size, sizeof(sizes), cudaMemcpyDeviceToHost);
    unsigned int largest = 0;
    for (int d = 0; d < kBuckets; ++d) largest = sizes[d] > largest ? sizes[d] : largest;
    if (largest <= static_cast<unsigned int>(kLocalCapacity)) {
        bucket_sort<<<kBuckets, kLocalThreads, 2 * kLocalCapacity * sizeof(unsigned int)>>>(
            msd_tiles, counts, bucket_size, tmp_keys, tmp_vals, sorted_keys, sorted_values);
        return;
    }
    // a bucket too large for one block (keys far from uniform in their top bits): four 8-bit LSD
    // passes over the whole input instead
    const unsigned int* src_keys = keys;
    const int* src_vals = values;
    for (int pass = 0; pass < 4; ++pass) {
        const int shift = 8 * pass;
        unsigned int* dst_keys = (pass % 2 == 0) ? tmp_keys : sorted_keys;  // ends in the output
        int* dst_vals = (pass % 2 == 0) ? tmp_vals : sorted_values;
        tile_histogram<<<lsd_tiles, kThreads>>>(n, shift, lsd_tiles, src_keys, counts);
        cub::DeviceScan::ExclusiveSum(scan_temp, scan_bytes, counts, counts, static_cast<int>(lsd_counts));
        tile_scatter<<<lsd_tiles, kThreads>>>(n, shift, lsd_tiles, src_keys, src_vals, counts, dst_keys, dst_vals);
        src_keys = dst_keys;
        src_vals = dst_vals;
    }
}
