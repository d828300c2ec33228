// steps: parallelize, warp_shuffle_reduction, shared_memory_tiling, thread_coarsening, bank_conflict_avoidance
// One pass over the data, a chained scan with decoupled look-back (the scheme of single-pass
// prefix scans): a block takes the next tile of 4096 elements (256 threads x 16) in launch order
// from a counter, stages it in shared memory (padded, so the per-thread runs of 16 consecutive
// elements read without bank conflicts), and each thread finds the run heads among its 16. A
// block-wide shuffle scan gives every thread the heads before it in the tile and the last head
// position before it; thread 0 publishes the tile's aggregate (heads, last head position), then
// walks back over the predecessors' published words (aggregates it adds up, until an inclusive
// prefix) and publishes the tile's inclusive prefix. Flag, count and position share one 64-bit word,
// so one store publishes them together. Every head then writes its value and the length of the
// run before it (its position minus the previous head's), and the last tile writes the run count
// and the last run's length. The data crosses DRAM once, the runs once.
constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;
constexpr int kItems = 16;
constexpr int kTile = kThreads * kItems;

// A tile's published word: flag (2 bits) | head count (31) | last head position + 1 (31; 0: none)
constexpr unsigned long long kAggregate = 1ull << 62, kPrefix = 2ull << 62;
constexpr unsigned long long kField = (1ull << 31) - 1;

__host__ __device__ constexpr int pad(int i) { return i + (i >> 5); }

__device__ __forceinline__ unsigned long long pack(unsigned long long flag, int count, int last) {
    return flag | ((unsigned long long)count << 31) | (unsigned long long)(last + 1);
}

struct Heads {
    int count;  // heads
    int last;   // position of the last head, -1 if none
};

// Exclusive block-wide scan of (count: sum, last: max) over the threads; total gets the block's.
// Head positions grow with the thread index, so the max is the latest head.
__device__ __forceinline__ Heads block_exclusive_scan(Heads x, Heads* warp_totals, Heads& total) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    Heads in = x;
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
        const int c = __shfl_up_sync(0xffffffffu, in.count, d), p = __shfl_up_sync(0xffffffffu, in.last, d);
        if (lane >= d) {
            in.count += c;
            in.last = max(in.last, p);
        }
    }
    Heads ex{__shfl_up_sync(0xffffffffu, in.count, 1), __shfl_up_sync(0xffffffffu, in.last, 1)};
    if (lane == 0) ex = Heads{0, -1};
    if (lane == 31) warp_totals[warp] = in;
    __syncthreads();
    total = Heads{0, -1};
#pragma unroll
    for (int w = 0; w < kWarps; ++w) {
        if (w == warp) ex = Heads{total.count + ex.count, max(total.last, ex.last)};
        total = Heads{total.count + warp_totals[w].count, max(total.last, warp_totals[w].last)};
    }
    return ex;
}

__global__ void __launch_bounds__(kThreads)
    rle_single_pass(int n, int tiles, const int* __restrict__ values, int* __restrict__ run_values,
                    int* __restrict__ run_lengths, int* __restrict__ num_runs, unsigned long long* state,
                    unsigned int* next_tile) {
    __shared__ int tile_values[pad(kTile) + 1];
    __shared__ Heads warp_totals[kWarps];
    __shared__ int tile_id, before;  // before: the element just before the tile (or one unequal to the first)
    __shared__ Heads preceding;      // all heads before the tile
    if (threadIdx.x == 0) tile_id = (int)atomicAdd(next_tile, 1u);  // launch order: predecessors have started
    __syncthreads();
    const int tile = tile_id;
    const long long base = (long long)tile * kTile;
    for (int k = 0; k < kItems; ++k) {
        const int local = k * kThreads + threadIdx.x;
        if (base + local < n) tile_values[pad(local)] = values[base + local];
    }
    if (threadIdx.x == 0) before = base > 0 ? values[base - 1] : ~values[0];
    __syncthreads();

    const int first = threadIdx.x * kItems;
    const int count = (int)min((long long)kItems, max(0LL, n - base - first));
    int prev = first == 0 ? before : (count > 0 ? tile_values[pad(first - 1)] : 0);
    unsigned int head_mask = 0;
    for (int k = 0; k < count; ++k) {
        const int v = tile_values[pad(first + k)];
        if (v != prev) head_mask |= 1u << k;
        prev = v;
    }
    const Heads mine{__popc(head_mask), head_mask ? (int)(base + first + 31 - __clz(head_mask)) : -1};
    Heads tile_total;
    const Heads within = block_exclusive_scan(mine, warp_totals, tile_total);

    if (threadIdx.x == 0) {
        volatile unsigned long long* words = state;
        Heads ex{0, -1};
        if (tile > 0) {
            words[tile] = pack(kAggregate, tile_total.count, tile_total.last);
            for (int p = tile - 1; p >= 0; --p) {
                unsigned long long w;
                do {
                    w = words[p];
                } while ((w >> 62) == 0);
                ex.count += (int)((w >> 31) & kField);
                if (ex.last < 0) ex.last = (int)(w & kField) - 1;  // walking back: the latest head found first
                if ((w & kPrefix) != 0) break;
            }
        }
        const Heads in{ex.count + tile_total.count, tile_total.last >= 0 ? tile_total.last : ex.last};
        words[tile] = pack(kPrefix, in.count, in.last);
        preceding = ex;
        if (tile == tiles - 1) {
            *num_runs = in.count;
            run_lengths[in.count - 1] = n - in.last;
        }
    }
    __syncthreads();

    int slot = preceding.count + within.count;
    int last = within.last >= 0 ? within.last : preceding.last;  // the head before this thread's first
    while (head_mask) {
        const int k = __ffs(head_mask) - 1;
        head_mask &= head_mask - 1;
        const int position = (int)(base + first + k);
        run_values[slot] = tile_values[pad(first + k)];
        if (slot > 0) run_lengths[slot - 1] = position - last;
        last = position;
        ++slot;
    }
}

void run_length_encode(int n, const int* values, int* run_values, int* run_lengths, int* num_runs) {
    if (n <= 0) return;
    const int tiles = (n + kTile - 1) / kTile;
    static unsigned long long* state = nullptr;  // tiles words, then the tile counter
    static int capacity = 0;
    if (tiles > capacity) {
        if (state) cudaFree(state);
        cudaMalloc(&state, (static_cast<size_t>(tiles) + 1) * sizeof(unsigned long long));
        capacity = tiles;
    }
    cudaMemsetAsync(state, 0, (static_cast<size_t>(tiles) + 1) * sizeof(unsigned long long));
    rle_single_pass<<<tiles, kThreads>>>(n, tiles, values, run_values, run_lengths, num_runs, state,
                                         reinterpret_cast<unsigned int*>(state + tiles));
}
