// steps: parallelize, algorithmic_change, atomic_privatization, thread_coarsening, shared_memory_tiling, warp_aggregated_atomics, work_efficient_scan, warp_shuffle_reduction, memory_coalescing, loop_unrolling, read_only_cache
// Single-sweep LSD radix sort ("onesweep"): the pairs cross DRAM once per digit pass, with no
// separate count pass per digit.
// (1) One kernel reads the keys once and counts every pass's digits (shared histograms, then one
//     global atomic per nonzero bin and block).
// (2) One kernel per pass. Each block takes the next tile id from an atomic counter, so tiles
//     start in order. Every warp ranks its contiguous slice of the tile by digit (peers found by one
//     ballot per digit bit, a warp-private counter per digit, bumped once per peer group by its lowest lane), in
//     input order, so the rank is stable. The tile publishes its digit counts at once, then, per
//     digit, walks back over earlier tiles' published words (decoupled look-back: flag and count
//     in one word) until it meets an inclusive prefix, and publishes its own. Meanwhile the tile is
//     sorted by digit in shared memory, and goes out with consecutive threads on consecutive slots
//     of each digit's run (the run's global start: the digit's bin start from (1), plus the
//     look-back's count of that digit in earlier tiles).
// Passes ping-pong between a scratch pair and the output, ending in the output.
// A call launches five kernels and nothing else: the control area is zeroed only when it is
// allocated, and it cleans up after itself. Each look-back word carries the call's epoch, so words
// left by earlier calls never count (the area is zeroed again when the epoch wraps); the last tile
// of a pass puts its tile counter back to zero; the digit counts alternate between two buffers,
// and each call's (1) zeroes the one the next call will fill.
#include <cuda_runtime.h>

#include <algorithm>

constexpr int kBits = 8;  // digit width
constexpr int kPasses = 4;  // kBits * kPasses >= 32
constexpr int kThreads = 512;
constexpr int kItems = 12;  // keys per thread: a tile of 6144 pairs
constexpr int kMinBlocks = 2;  // two blocks (1024 threads) an SM: 64 registers, no spills
constexpr int kRadix = 1 << kBits;
constexpr unsigned int kDigitMask = kRadix - 1;
constexpr int kWarps = kThreads / 32;
constexpr int kTile = kThreads * kItems;
constexpr int kWarpTile = 32 * kItems;
constexpr int kDigitLoops = (kRadix + kThreads - 1) / kThreads;  // digits a thread owns in per-digit steps
constexpr int kScanPer = kRadix >= kThreads ? kRadix / kThreads : 1;  // consecutive digits a thread scans
static_assert(kBits * kPasses >= 32, "the passes cover the key");
static_assert(kRadix < kThreads || kRadix % kThreads == 0, "the digit scan splits digits evenly");
static_assert(kTile < 65536, "per-warp digit offsets are 16-bit");
static_assert(kDigitLoops <= 32, "pending digits are a 32-bit mask");

constexpr int kHistThreads = 512;
constexpr int kHistUnroll = 8;
constexpr int kHistBlocksPerSm = 2;  // each block adds kPasses * kRadix global atomics at its end

// Look-back words: two flag bits, the call's epoch, a count. 32-bit words hold counts below 2^24
// (6 epoch bits: the area is zeroed every 63 calls); longer inputs take 64-bit words (30 epoch bits).
template <typename Word>
struct Status {
    static constexpr int kCountBits = sizeof(Word) == 4 ? 24 : 32;
    static constexpr int kEpochBits = 8 * static_cast<int>(sizeof(Word)) - 2 - kCountBits;
    static constexpr Word kAggregate = Word(1) << (8 * sizeof(Word) - 2);  // the tile's own count
    static constexpr Word kPrefix = Word(2) << (8 * sizeof(Word) - 2);  // count over tiles up to it
    static constexpr Word kCount = (Word(1) << kCountBits) - 1;
    static constexpr Word kEpoch = kAggregate - 1 - kCount;  // the epoch's bits, in place
    static constexpr unsigned long long kEpochs = 1ull << kEpochBits;  // epoch 0: zeroed, never a call's
};
static_assert(Status<unsigned int>::kEpochBits == 6 && Status<unsigned long long>::kEpochBits == 30, "word layout");

__global__ void __launch_bounds__(kHistThreads)
    digit_histograms(int n, const unsigned int* __restrict__ keys, unsigned int* __restrict__ hist,
                     unsigned int* __restrict__ next_hist) {
    __shared__ unsigned int counts[kPasses * kRadix];
    for (int j = threadIdx.x; j < kPasses * kRadix; j += kHistThreads) {
        counts[j] = 0;
        if (blockIdx.x == 0) next_hist[j] = 0;  // the last call's passes, which read it, are done
    }
    __syncthreads();
    const long long stride = static_cast<long long>(gridDim.x) * kHistThreads;
    for (long long base = static_cast<long long>(blockIdx.x) * kHistThreads + threadIdx.x; base < n;
         base += stride * kHistUnroll) {
        unsigned int key[kHistUnroll];
#pragma unroll
        for (int u = 0; u < kHistUnroll; ++u) {
            const long long i = base + u * stride;
            key[u] = i < n ? __ldg(keys + i) : 0u;
        }
#pragma unroll
        for (int u = 0; u < kHistUnroll; ++u) {
            if (base + u * stride < n) {
#pragma unroll
                for (int p = 0; p < kPasses; ++p) atomicAdd(&counts[p * kRadix + ((key[u] >> (p * kBits)) & kDigitMask)], 1u);
            }
        }
    }
    __syncthreads();
    for (int j = threadIdx.x; j < kPasses * kRadix; j += kHistThreads) {
        const unsigned int c = counts[j];
        if (c != 0) atomicAdd(&hist[j], c);
    }
}

// The lanes of the warp holding this lane's digit (or, for a lane past the end, the other lanes past
// the end): one ballot per digit bit, each keeping the lanes that agree on that bit.
__device__ __forceinline__ unsigned int digit_peers(unsigned int digit, bool ok) {
    const unsigned int in_range = __ballot_sync(0xffffffffu, ok);
    unsigned int peers = ok ? in_range : ~in_range;
#pragma unroll
    for (int b = 0; b < kBits; ++b) {
        const bool bit = (digit >> b) & 1u;
        const unsigned int votes = __ballot_sync(0xffffffffu, bit);
        peers &= bit ? votes : ~votes;
    }
    return peers;
}

// Dynamic shared memory of one pass block (over the 48 KiB static limit).
struct PassShared {
    unsigned int staged_keys[kTile];  // the tile sorted by digit
    int staged_vals[kTile];
    unsigned int digit_total[kRadix];  // the tile's count of each digit
    unsigned int digit_local[kRadix];  // the digit's first slot in the sorted tile
    unsigned int digit_offset[kRadix];  // bin start, then (global slot - local slot) of the digit's run
    unsigned short warp_count[kWarps][kRadix];  // a warp's count of a digit, then its first rank in the tile's run
};

template <typename Word>
__global__ void __launch_bounds__(kThreads, kMinBlocks)
    onesweep_pass(int n, int shift, const unsigned int* __restrict__ keys_in, const int* __restrict__ vals_in,
                  unsigned int* __restrict__ keys_out, int* __restrict__ vals_out,
                  const unsigned int* __restrict__ bin_count, unsigned int* tile_counter, Word epoch, Word* status) {
    extern __shared__ __align__(16) unsigned char shared_bytes[];
    PassShared& sh = *reinterpret_cast<PassShared*>(shared_bytes);
    __shared__ int tile_id;
    __shared__ unsigned int scan_sums[kWarps][2];

    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    if (tid == 0) {
        tile_id = static_cast<int>(atomicAdd(tile_counter, 1u));  // in start order: look-back cannot wait on an unstarted tile
        // the last id drawn: every block has drawn, so the counter is ready for the next launch
        if (tile_id == static_cast<int>(gridDim.x) - 1) *tile_counter = 0;
    }
    unsigned int* counters = reinterpret_cast<unsigned int*>(&sh.warp_count[0][0]);
    for (int j = tid; j < kWarps * kRadix / 2; j += kThreads) counters[j] = 0;
    __syncthreads();
    const int tile = tile_id;
    const long long tile_base = static_cast<long long>(tile) * kTile;
    const int valid = static_cast<int>(min(static_cast<long long>(kTile), n - tile_base));

    // load a warp's contiguous slice (coalesced) and rank each key among the slice's equal digits
    const unsigned int lanes_below = (1u << lane) - 1u;
    const long long slice = tile_base + warp * kWarpTile;
    // item it of this lane is in range when it * 32 < room (32-bit compares, one pointer a lane)
    const int room = static_cast<int>(max(-1LL, min(static_cast<long long>(kWarpTile), n - slice - lane)));
    const unsigned int* lane_keys = keys_in + (slice + lane);
    const int* lane_vals = vals_in + (slice + lane);
    unsigned int key[kItems];
    unsigned int rank_pairs[(kItems + 1) / 2];  // two 16-bit ranks a register: the arrays fit without spills
    int val[kItems];
#pragma unroll
    for (int it = 0; it < kItems; ++it) {
        const bool ok = it * 32 < room;
        key[it] = ok ? __ldg(lane_keys + it * 32) : 0u;
        val[it] = ok ? __ldg(lane_vals + it * 32) : 0;
    }
#pragma unroll
    for (int it = 0; it < kItems; ++it) {
        const bool ok = it * 32 < room;
        const unsigned int digit = ok ? (key[it] >> shift) & kDigitMask : kRadix;  // kRadix: padding, never counted
        const unsigned int peers = digit_peers(digit, ok);
        const int leader = __ffs(peers) - 1;
        unsigned int before = 0;
        if (ok && lane == leader) {
            before = sh.warp_count[warp][digit];
            sh.warp_count[warp][digit] = static_cast<unsigned short>(before + __popc(peers));
        }
        before = __shfl_sync(0xffffffffu, before, leader);
        const unsigned int rank = before + __popc(peers & lanes_below);
        if (it % 2 == 0) {
            rank_pairs[it / 2] = rank;
        } else {
            rank_pairs[it / 2] |= rank << 16;
        }
        __syncwarp();  // the count written here is read by the next group's leader, maybe another lane
    }
    __syncthreads();

    // per digit: the warps' counts become exclusive prefixes, and the tile's count is published
#pragma unroll
    for (int j = 0; j < kDigitLoops; ++j) {
        const int d = tid + j * kThreads;
        if (d < kRadix) {
            unsigned int running = 0;
#pragma unroll
            for (int w = 0; w < kWarps; ++w) {
                const unsigned int c = sh.warp_count[w][d];
                sh.warp_count[w][d] = static_cast<unsigned short>(running);
                running += c;
            }
            sh.digit_total[d] = running;
            const Word word = (tile == 0 ? Status<Word>::kPrefix : Status<Word>::kAggregate) | epoch | static_cast<Word>(running);
            *reinterpret_cast<volatile Word*>(status + static_cast<long long>(tile) * kRadix + d) = word;
        }
    }
    __syncthreads();

    // exclusive scans over the digits, two at once: the tile's counts (each digit's first slot in the
    // sorted tile) and the whole input's counts (each digit's first slot in the output)
    {
        const int d0 = tid * kScanPer;
        unsigned int a[kScanPer], b[kScanPer], sum_a = 0, sum_b = 0;
#pragma unroll
        for (int j = 0; j < kScanPer; ++j) {
            const bool in = d0 + j < kRadix;
            a[j] = in ? sh.digit_total[d0 + j] : 0u;
            b[j] = in ? __ldg(bin_count + d0 + j) : 0u;
            sum_a += a[j];
            sum_b += b[j];
        }
        unsigned int inc_a = sum_a, inc_b = sum_b;
#pragma unroll
        for (int o = 1; o < 32; o <<= 1) {
            const unsigned int up_a = __shfl_up_sync(0xffffffffu, inc_a, o);
            const unsigned int up_b = __shfl_up_sync(0xffffffffu, inc_b, o);
            if (lane >= o) {
                inc_a += up_a;
                inc_b += up_b;
            }
        }
        if (lane == 31) {
            scan_sums[warp][0] = inc_a;
            scan_sums[warp][1] = inc_b;
        }
        __syncthreads();
        unsigned int ex_a = inc_a - sum_a, ex_b = inc_b - sum_b;
        for (int w = 0; w < warp; ++w) {
            ex_a += scan_sums[w][0];
            ex_b += scan_sums[w][1];
        }
#pragma unroll
        for (int j = 0; j < kScanPer; ++j) {
            if (d0 + j < kRadix) {
                sh.digit_local[d0 + j] = ex_a;
                sh.digit_offset[d0 + j] = ex_b;
                ex_a += a[j];
                ex_b += b[j];
            }
        }
    }
    __syncthreads();

    // the tile sorted by digit in shared memory (stable: warp slices in order, ranks in input order)
#pragma unroll
    for (int it = 0; it < kItems; ++it) {
        if (it * 32 < room) {
            const unsigned int digit = (key[it] >> shift) & kDigitMask;
            const unsigned int rank = (rank_pairs[it / 2] >> (16 * (it % 2))) & 0xFFFFu;
            const unsigned int local = sh.digit_local[digit] + sh.warp_count[warp][digit] + rank;
            sh.staged_keys[local] = key[it];
            sh.staged_vals[local] = val[it];
        }
    }

    // decoupled look-back, all of a thread's digits a tile at a time (their loads in flight together)
    {
        unsigned int before[kDigitLoops];
        unsigned int pending = 0;
#pragma unroll
        for (int j = 0; j < kDigitLoops; ++j) {
            before[j] = 0;
            if (tile > 0 && tid + j * kThreads < kRadix) pending |= 1u << j;
        }
        // a walk ends at the latest at tile 0, which publishes a prefix from the start
        for (int look = tile - 1; pending != 0; --look) {
            const volatile Word* row = status + static_cast<long long>(look) * kRadix + tid;
            unsigned int waiting = pending;
            while (waiting != 0) {
#pragma unroll
                for (int j = 0; j < kDigitLoops; ++j) {
                    if (waiting & (1u << j)) {
                        const Word word = row[j * kThreads];
                        // a word of an earlier call (another epoch) is as good as unpublished
                        if ((word & Status<Word>::kEpoch) == epoch && (word & (Status<Word>::kAggregate | Status<Word>::kPrefix))) {
                            before[j] += static_cast<unsigned int>(word & Status<Word>::kCount);
                            waiting &= ~(1u << j);
                            if (word & Status<Word>::kPrefix) pending &= ~(1u << j);
                        }
                    }
                }
            }
        }
#pragma unroll
        for (int j = 0; j < kDigitLoops; ++j) {
            const int d = tid + j * kThreads;
            if (d < kRadix) {
                if (tile > 0) {
                    const Word word = Status<Word>::kPrefix | epoch | static_cast<Word>(before[j] + sh.digit_total[d]);
                    *reinterpret_cast<volatile Word*>(status + static_cast<long long>(tile) * kRadix + d) = word;
                }
                // unsigned wrap-around: global slot = offset + local slot, for every slot of the run
                sh.digit_offset[d] = sh.digit_offset[d] + before[j] - sh.digit_local[d];
            }
        }
    }
    __syncthreads();

    // out along each digit's run: consecutive threads on consecutive slots
#pragma unroll
    for (int it = 0; it < kItems; ++it) {
        const int local = it * kThreads + tid;
        if (local < valid) {
            const unsigned int k = sh.staged_keys[local];
            const unsigned int pos = sh.digit_offset[(k >> shift) & kDigitMask] + static_cast<unsigned int>(local);
            keys_out[pos] = k;
            vals_out[pos] = sh.staged_vals[local];
        }
    }
}

// Scratch kept across calls, grown when n grows: the ping-pong pairs, and one control block (two
// digit-count buffers, per-pass tile counters, per-pass look-back words) zeroed when allocated,
// when the epoch wraps and when the look-back word width changes.
// The static workspace (and the cached SM count and attribute flags) belongs to one device per
// process: the harness runs on a single device; a process that switches devices would need one
// Scratch per device.
struct Scratch {
    unsigned int* keys = nullptr;
    int* vals = nullptr;
    unsigned char* control = nullptr;
    int n_cap = 0;
    size_t control_cap = 0;
    size_t word_bytes = 0;  // the look-back word width of the last call: 0 after zeroing
    unsigned long long epoch = 0;  // the last call's epoch
    unsigned long long calls = 0;  // picks the digit-count buffer
};

template <typename Word>
static void sort_passes(int n, const unsigned int* keys, const int* values, unsigned int* sorted_keys,
                        int* sorted_values, Scratch& s) {
    const int tiles = static_cast<int>((static_cast<long long>(n) + kTile - 1) / kTile);
    const size_t hist_bytes = 2 * sizeof(unsigned int) * kPasses * kRadix;
    const size_t counter_bytes = 256;  // kPasses counters, padded so the look-back words stay aligned
    const size_t status_per_pass = static_cast<size_t>(tiles) * kRadix;
    const size_t control_bytes = hist_bytes + counter_bytes + sizeof(Word) * status_per_pass * kPasses;
    if (control_bytes > s.control_cap) {
        if (s.control) cudaFree(s.control);
        if (cudaMalloc(&s.control, control_bytes) != cudaSuccess) {
            cudaGetLastError();  // clear the allocation error so the caller's next check sees its own
            s.control = nullptr;  // asked again next call; this call writes nothing, which the checks reject
            s.control_cap = 0;
            return;
        }
        s.control_cap = control_bytes;
        s.word_bytes = 0;
    }
    // zero everything when new, when the epochs run out, or when words of the other width (whose
    // bits could pass for this width's epoch) may be left
    if (s.word_bytes != sizeof(Word) || s.epoch + 1 >= Status<Word>::kEpochs) {
        cudaMemsetAsync(s.control, 0, s.control_cap);
        s.word_bytes = sizeof(Word);
        s.epoch = 0;
    }
    ++s.epoch;
    const Word epoch = static_cast<Word>(s.epoch) << Status<Word>::kCountBits;
    unsigned int* hist = reinterpret_cast<unsigned int*>(s.control) + (s.calls % 2) * kPasses * kRadix;
    unsigned int* next_hist = reinterpret_cast<unsigned int*>(s.control) + ((s.calls + 1) % 2) * kPasses * kRadix;
    ++s.calls;
    unsigned int* counters = reinterpret_cast<unsigned int*>(s.control + hist_bytes);
    Word* status = reinterpret_cast<Word*>(s.control + hist_bytes + counter_bytes);

    static int sm_count = 0;
    if (sm_count == 0) {
        int device = 0;
        cudaGetDevice(&device);
        cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device);
        if (sm_count <= 0) sm_count = 1;
    }
    const long long hist_blocks_needed = (static_cast<long long>(n) + kHistThreads * kHistUnroll - 1) / (kHistThreads * kHistUnroll);
    const int hist_blocks = static_cast<int>(std::min(hist_blocks_needed, static_cast<long long>(kHistBlocksPerSm) * sm_count));
    digit_histograms<<<hist_blocks, kHistThreads>>>(n, keys, hist, next_hist);

    static bool attribute_set = false;
    if (!attribute_set) {
        cudaFuncSetAttribute(onesweep_pass<Word>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             static_cast<int>(sizeof(PassShared)));
        attribute_set = true;  // one flag per Word: a static of this function template's instance
    }
    const unsigned int* src_keys = keys;
    const int* src_vals = values;
    for (int pass = 0; pass < kPasses; ++pass) {
        const bool to_output = (kPasses - 1 - pass) % 2 == 0;  // the last pass writes the output
        unsigned int* dst_keys = to_output ? sorted_keys : s.keys;
        int* dst_vals = to_output ? sorted_values : s.vals;
        onesweep_pass<Word><<<tiles, kThreads, sizeof(PassShared)>>>(
            n, pass * kBits, src_keys, src_vals, dst_keys, dst_vals, hist + pass * kRadix, counters + pass,
            epoch, status + status_per_pass * pass);
        src_keys = dst_keys;
        src_vals = dst_vals;
    }
}

void radix_sort_pairs(int n, const unsigned int* keys, const int* values, unsigned int* sorted_keys,
                      int* sorted_values) {
    if (n <= 0) return;
    static Scratch s;
    if (n > s.n_cap) {
        if (s.keys) cudaFree(s.keys);
        if (s.vals) cudaFree(s.vals);
        s.keys = nullptr;
        s.vals = nullptr;
        s.n_cap = 0;
        unsigned int* k = nullptr;
        int* v = nullptr;
        const bool got_keys = cudaMalloc(&k, static_cast<size_t>(n) * sizeof(unsigned int)) == cudaSuccess;
        const bool got_vals = got_keys && cudaMalloc(&v, static_cast<size_t>(n) * sizeof(int)) == cudaSuccess;
        if (!got_vals) {
            cudaGetLastError();  // clear the allocation error so the caller's next check sees its own
            if (got_keys) cudaFree(k);
            return;  // asked again next call; this call writes nothing, which the checks reject
        }
        s.keys = k;
        s.vals = v;
        s.n_cap = n;
    }
    if (n < (1 << 24)) {
        sort_passes<unsigned int>(n, keys, values, sorted_keys, sorted_values, s);
    } else {
        sort_passes<unsigned long long>(n, keys, values, sorted_keys, sorted_values, s);
    }
}
