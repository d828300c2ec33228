// steps: parallelize, algorithmic_change, atomic_privatization, thread_coarsening, shared_memory_tiling, warp_aggregated_atomics, work_efficient_scan, warp_shuffle_reduction, memory_coalescing, loop_unrolling, read_only_cache, vectorized_access, data_layout_transform, programmatic_dependent_launch
// Hybrid radix sort: one MSD scatter by the top 9 bits, then each bucket sorted on chip. A pair is
// read and written twice (scatter, bucket sort) after one read of the keys (histogram): 36 bytes of
// DRAM traffic a pair, against 68 for a byte-wise LSD onesweep (4 passes of 16 bytes, plus the keys).
// (1) Histogram of the top 9 key bits: one read of the keys (16-byte loads), shared counters, one
//     global atomic per nonzero bin and block; the last block done scans the 512 counts into the
//     bucket starts and zeroes the counts for the next call.
// (2) One stable onesweep scatter by the top 9 bits into a scratch pair. Each block takes the next
//     tile id from an atomic counter, so tiles start in order. Every warp ranks its contiguous
//     slice by digit (peers found by one ballot per digit bit, a warp-private 16-bit counter per
//     digit bumped once per peer group by its highest lane), in input order, so the rank is stable.
//     The tile publishes its digit counts, sorts itself by digit in shared memory, walks back over
//     earlier tiles' words (decoupled look-back: flag, epoch and count in one word) until it meets
//     an inclusive prefix, and writes each digit's run at bucket start + earlier tiles' count.
// (3) One 1024-thread block per bucket sorts the 23 bits left entirely on chip: three stable LSD
//     passes (8, 8, 7 bits) ranked as in (2), then the bucket goes out in order. A pass moves one
//     32-bit word a pair through shared memory: the key bits later passes still need and the pair's
//     slot. Values and the lowest key byte stay in place and are gathered once, at the end: a pass
//     stores and reloads one word a pair (not a key and a slot), and 18432 pairs fit in 186 KB.
//     Full warps rank without the padding digit's extra ballot.
// Why 9 bits: 512 buckets of about 16K pairs at the bench size fit one block's shared memory, with
// the capacity about 7 standard deviations above the mean bucket; 10 bits gives smaller buckets
// (two blocks an SM in (3)) but doubles the scatter's digits, whose per-tile digit work and
// shorter runs of writes cost more than (3) gains.
// A bucket over the on-chip capacity (skewed keys: all equal, or all below 2^23) is sorted by its
// block through global memory: chunked stable LSD passes ping-ponging between its scratch and output
// ranges, a pass skipped where all its digits are equal. Slow, but correct for any input.
// Programmatic dependent launch: (2) may start as soon as (1)'s blocks leave room, and waits for the
// bucket starts only after its loads, ranking and look-back; (3) is launched early too and waits
// at its start, which hides the launch gap between kernels.
// A call normally launches three kernels and nothing else: the control area is zeroed only when it
// is allocated (and when the 6-bit epoch wraps), and it cleans up after itself.
#include <cuda_runtime.h>

#include <algorithm>

namespace hb {

constexpr unsigned int kFull = 0xffffffffu;
constexpr int kB = 9;  // bits the scatter pass sorts by: 512 buckets of about 16K pairs at the bench size
constexpr int kBuckets = 1 << kB;
constexpr int kTopShift = 32 - kB;

// ---------------------------------------------------------------- warp ranking
// The lanes of the warp whose digit equals this lane's: one ballot per digit bit (cheaper here than
// __match_any_sync). Digits of NB bits; where a warp has padding items they carry the digit
// 1 << (NB - 1), one past the real ones, and rank with one more ballot; full warps skip it.
template <int NB>
__device__ __forceinline__ unsigned int peers_of(unsigned int digit) {
    unsigned int peers = kFull;
#pragma unroll
    for (int b = 0; b < NB; ++b) {
        const bool bit = (digit >> b) & 1u;
        const unsigned int votes = __ballot_sync(kFull, bit);
        peers &= bit ? votes : ~votes;
    }
    return peers;
}

// Programmatic dependent launch: a kernel lets the next one in the stream start (launch_dependents)
// and waits for the previous one's completion and memory (wait) only where it needs its results.
// Both are no-ops for a kernel launched without the attribute.
__device__ __forceinline__ void pdl_allow_next() {
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
}
__device__ __forceinline__ void pdl_wait_prev() {
    asm volatile("griddepcontrol.wait;" ::: "memory");
}

// ---------------------------------------------------------------- K1: bucket histogram + starts
constexpr int kHistThreads = 512;
constexpr int kHistUnroll = 4;  // 16-byte loads a thread has in flight

__global__ void __launch_bounds__(kHistThreads)
    bucket_histogram(int n, const unsigned int* __restrict__ keys, unsigned int* hist, unsigned int* bucket_start,
                     unsigned int* done_counter) {
    __shared__ unsigned int counts[kBuckets];
    __shared__ unsigned int wsum[kHistThreads / 32];
    __shared__ bool last;
    pdl_allow_next();
    for (int j = threadIdx.x; j < kBuckets; j += kHistThreads) counts[j] = 0;
    __syncthreads();
    // 16-byte loads where the keys are 16-byte aligned (cudaMalloc'd), then the tail one at a time
    const bool aligned = (reinterpret_cast<unsigned long long>(keys) & 15) == 0;
    const int n4 = aligned ? n / 4 : 0;
    const uint4* keys4 = reinterpret_cast<const uint4*>(keys);
    const int stride = gridDim.x * kHistThreads;
    for (int base = blockIdx.x * kHistThreads + threadIdx.x; base < n4; base += stride * kHistUnroll) {
        uint4 q[kHistUnroll];
#pragma unroll
        for (int u = 0; u < kHistUnroll; ++u) {
            const int i = base + u * stride;
            q[u] = i < n4 ? __ldg(keys4 + i) : make_uint4(0u, 0u, 0u, 0u);
        }
#pragma unroll
        for (int u = 0; u < kHistUnroll; ++u) {
            if (base + u * stride < n4) {
                atomicAdd(&counts[q[u].x >> kTopShift], 1u);
                atomicAdd(&counts[q[u].y >> kTopShift], 1u);
                atomicAdd(&counts[q[u].z >> kTopShift], 1u);
                atomicAdd(&counts[q[u].w >> kTopShift], 1u);
            }
        }
    }
    for (int i = 4 * n4 + blockIdx.x * kHistThreads + threadIdx.x; i < n; i += stride)
        atomicAdd(&counts[__ldg(keys + i) >> kTopShift], 1u);
    __syncthreads();
    for (int j = threadIdx.x; j < kBuckets; j += kHistThreads) {
        const unsigned int c = counts[j];
        if (c != 0) atomicAdd(&hist[j], c);
    }
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) last = atomicAdd(done_counter, 1u) == gridDim.x - 1;
    __syncthreads();
    if (!last) return;
    __threadfence();
    // the last block: exclusive scan of the bucket counts, then zero them for the next call
    constexpr int kPer = (kBuckets + kHistThreads - 1) / kHistThreads;
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    unsigned int c[kPer], sum = 0;
#pragma unroll
    for (int j = 0; j < kPer; ++j) {
        const int d = tid * kPer + j;
        c[j] = d < kBuckets ? __ldcg(hist + d) : 0u;
        sum += c[j];
    }
    unsigned int inc = sum;
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
        const unsigned int up = __shfl_up_sync(kFull, inc, o);
        if (lane >= o) inc += up;
    }
    if (lane == 31) wsum[warp] = inc;
    __syncthreads();
    unsigned int ex = inc - sum;
    for (int w = 0; w < warp; ++w) ex += wsum[w];
#pragma unroll
    for (int j = 0; j < kPer; ++j) {
        const int d = tid * kPer + j;
        if (d < kBuckets) {
            bucket_start[d] = ex;
            ex += c[j];
            hist[d] = 0;
        }
    }
    if (tid == 0) {
        bucket_start[kBuckets] = static_cast<unsigned int>(n);
        *done_counter = 0;
    }
}

// ---------------------------------------------------------------- K2: onesweep scatter by top bits
constexpr int kThreads = 512;
constexpr int kItems = 14;  // a tile of 7168 pairs
constexpr int kMinBlocks = 2;  // two tiles an SM: 64 registers
constexpr int kRadix = kBuckets;
constexpr int kWarps = kThreads / 32;
constexpr int kTile = kThreads * kItems;
constexpr int kWarpTile = 32 * kItems;
constexpr int kDigitLoops = (kRadix + kThreads - 1) / kThreads;
constexpr int kScanPer = kRadix >= kThreads ? kRadix / kThreads : 1;
static_assert(kRadix < kThreads || kRadix % kThreads == 0, "scan split");
static_assert(kTile < 65536, "16-bit offsets");

template <typename Word>
struct Status {
    static constexpr int kCountBits = sizeof(Word) == 4 ? 24 : 32;
    static constexpr int kEpochBits = 8 * static_cast<int>(sizeof(Word)) - 2 - kCountBits;
    static constexpr Word kAggregate = Word(1) << (8 * sizeof(Word) - 2);
    static constexpr Word kPrefix = Word(2) << (8 * sizeof(Word) - 2);
    static constexpr Word kCount = (Word(1) << kCountBits) - 1;
    static constexpr Word kEpoch = kAggregate - 1 - kCount;
    static constexpr unsigned long long kEpochs = 1ull << kEpochBits;
};

struct PassShared {
    unsigned int staged_keys[kTile];
    int staged_vals[kTile];
    unsigned int digit_total[kRadix];
    unsigned int digit_local[kRadix];
    unsigned int digit_offset[kRadix];
    unsigned short warp_count[kWarps][kRadix + 2];  // column kRadix: padding items (never read)
};

template <typename Word>
__global__ void __launch_bounds__(kThreads, kMinBlocks)
    scatter_pass(int n, const unsigned int* __restrict__ keys_in, const int* __restrict__ vals_in,
                 unsigned int* __restrict__ keys_out, int* __restrict__ vals_out,
                 const unsigned int* __restrict__ bucket_start, unsigned int* tile_counter, Word epoch, Word* status) {
    extern __shared__ __align__(16) unsigned char shared_bytes[];
    PassShared& sh = *reinterpret_cast<PassShared*>(shared_bytes);
    __shared__ int tile_id;
    __shared__ unsigned int scan_sums[kWarps];

    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    if (tid == 0) {
        pdl_allow_next();
        tile_id = static_cast<int>(atomicAdd(tile_counter, 1u));
        if (tile_id == static_cast<int>(gridDim.x) - 1) *tile_counter = 0;
    }
    unsigned int* counters = reinterpret_cast<unsigned int*>(&sh.warp_count[0][0]);
    for (int j = tid; j < kWarps * (kRadix + 2) / 2; j += kThreads) counters[j] = 0;
    __syncthreads();
    const int tile = tile_id;
    const long long tile_base = static_cast<long long>(tile) * kTile;
    const int valid = static_cast<int>(min(static_cast<long long>(kTile), n - tile_base));

    const unsigned int lanes_below = (1u << lane) - 1u;
    const long long slice = tile_base + warp * kWarpTile;
    const int room = static_cast<int>(max(-1LL, min(static_cast<long long>(kWarpTile), n - slice - lane)));
    const int warp_room = static_cast<int>(max(-1LL, min(static_cast<long long>(kWarpTile), n - slice)));  // warp-uniform
    const unsigned int* lane_keys = keys_in + (slice + lane);
    const int* lane_vals = vals_in + (slice + lane);
    unsigned int key[kItems];
    unsigned int rank_pairs[(kItems + 1) / 2];
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
        const unsigned int digit = ok ? key[it] >> kTopShift : kRadix;
        const unsigned int peers = (it + 1) * 32 <= warp_room ? peers_of<kB>(digit) : peers_of<kB + 1>(digit);
        // every lane of a group reads the count, the group's highest lane writes it back bumped
        const unsigned int rank = sh.warp_count[warp][digit] + __popc(peers & lanes_below);
        if ((peers >> lane) == 1u) sh.warp_count[warp][digit] = static_cast<unsigned short>(rank + 1);
        if (it % 2 == 0) {
            rank_pairs[it / 2] = rank;
        } else {
            rank_pairs[it / 2] |= rank << 16;
        }
        __syncwarp();
    }
    __syncthreads();

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

    {
        const int d0 = tid * kScanPer;
        unsigned int a[kScanPer], sum_a = 0;
#pragma unroll
        for (int j = 0; j < kScanPer; ++j) {
            a[j] = d0 + j < kRadix ? sh.digit_total[d0 + j] : 0u;
            sum_a += a[j];
        }
        unsigned int inc_a = sum_a;
#pragma unroll
        for (int o = 1; o < 32; o <<= 1) {
            const unsigned int up_a = __shfl_up_sync(kFull, inc_a, o);
            if (lane >= o) inc_a += up_a;
        }
        if (lane == 31) scan_sums[warp] = inc_a;
        __syncthreads();
        unsigned int ex_a = inc_a - sum_a;
        for (int w = 0; w < warp; ++w) ex_a += scan_sums[w];
#pragma unroll
        for (int j = 0; j < kScanPer; ++j) {
            if (d0 + j < kRadix) {
                sh.digit_local[d0 + j] = ex_a;
                ex_a += a[j];
            }
        }
    }
    __syncthreads();

#pragma unroll
    for (int it = 0; it < kItems; ++it) {
        if (it * 32 < room) {
            const unsigned int digit = key[it] >> kTopShift;
            const unsigned int rank = (rank_pairs[it / 2] >> (16 * (it % 2))) & 0xFFFFu;
            const unsigned int local = sh.digit_local[digit] + sh.warp_count[warp][digit] + rank;
            sh.staged_keys[local] = key[it];
            sh.staged_vals[local] = val[it];
        }
    }

    {
        unsigned int before[kDigitLoops];
        unsigned int pending = 0;
#pragma unroll
        for (int j = 0; j < kDigitLoops; ++j) {
            before[j] = 0;
            if (tile > 0 && tid + j * kThreads < kRadix) pending |= 1u << j;
        }
        for (int look = tile - 1; pending != 0; --look) {
            const volatile Word* row = status + static_cast<long long>(look) * kRadix + tid;
            unsigned int waiting = pending;
            while (waiting != 0) {
#pragma unroll
                for (int j = 0; j < kDigitLoops; ++j) {
                    if (waiting & (1u << j)) {
                        const Word word = row[j * kThreads];
                        if ((word & Status<Word>::kEpoch) == epoch && (word & (Status<Word>::kAggregate | Status<Word>::kPrefix))) {
                            before[j] += static_cast<unsigned int>(word & Status<Word>::kCount);
                            waiting &= ~(1u << j);
                            if (word & Status<Word>::kPrefix) pending &= ~(1u << j);
                        }
                    }
                }
            }
        }
        pdl_wait_prev();  // the bucket starts come from the histogram kernel
#pragma unroll
        for (int j = 0; j < kDigitLoops; ++j) {
            const int d = tid + j * kThreads;
            if (d < kRadix) {
                if (tile > 0) {
                    const Word word = Status<Word>::kPrefix | epoch | static_cast<Word>(before[j] + sh.digit_total[d]);
                    *reinterpret_cast<volatile Word*>(status + static_cast<long long>(tile) * kRadix + d) = word;
                }
                sh.digit_offset[d] = __ldcg(bucket_start + d) + before[j] - sh.digit_local[d];
            }
        }
    }
    __syncthreads();

#pragma unroll
    for (int it = 0; it < kItems; ++it) {
        const int local = it * kThreads + tid;
        if (local < valid) {
            const unsigned int k = sh.staged_keys[local];
            const int sv = sh.staged_vals[local];
            const unsigned int pos = sh.digit_offset[k >> kTopShift] + static_cast<unsigned int>(local);
            keys_out[pos] = k;
            vals_out[pos] = sv;
        }
    }
}

// ---------------------------------------------------------------- K3: per-bucket on-chip sort
constexpr int kT3 = 1024;
constexpr int kI3 = 18;  // capacity 18432 pairs
constexpr int kMinBlocks3 = 1;  // 186 KB of shared memory: one bucket an SM
constexpr int kW3 = kT3 / 32;
constexpr int kCap = kT3 * kI3;  // on-chip capacity of a bucket
constexpr int kWT3 = 32 * kI3;   // a warp's slice
constexpr int kRem = 32 - kB;    // bits left to sort in a bucket
constexpr int kLP = (kRem + 7) / 8;
static_assert(kLP == 3, "three local passes");
static_assert(kCap < 65536, "16-bit positions");
__host__ __device__ constexpr int lp_bits(int p) { return kRem / kLP + (p < kRem % kLP ? 1 : 0); }
__host__ __device__ constexpr int lp_shift(int p) { return p == 0 ? 0 : lp_shift(p - 1) + lp_bits(p - 1); }
static_assert(lp_shift(kLP) == kRem, "passes cover the rest");

constexpr int kWC = 258;  // 256 digits, a padding column, one more for word alignment

struct LocalShared {
    unsigned int pk[kCap];        // packed words, in the order of the pass just done
    int v[kCap];                  // values, input order
    unsigned char lo8[kCap];      // key bits 0..7, input order
    unsigned short wc[kW3][kWC];  // per warp and digit: count, then the digit run's first slot for the warp
    unsigned int dstart[256];
    unsigned int dtotal[256];
    unsigned int run[256];
    unsigned int wsum[8];
};

// Stable rank of a chunk (warp slices in order, item it of a lane at it*32+lane of its slice) by the
// digit at bits [SHIFT, SHIFT+BITS) of key: emit(it, digit, position in the chunk) for every valid item;
// the chunk's digit starts / totals stay in sh.dstart / sh.dtotal. wroom: the warp's valid items
// (uniform), room: the lane's.
template <int SHIFT, int BITS, typename Emit>
__device__ __forceinline__ void rank_chunk(const unsigned int (&key)[kI3], int room, int wroom, LocalShared& sh, Emit&& emit) {
    constexpr int R = 1 << BITS;
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const unsigned int lanes_below = (1u << lane) - 1u;
    {
        unsigned int* z = reinterpret_cast<unsigned int*>(&sh.wc[0][0]);
        for (int j = tid; j < kW3 * kWC / 2; j += kT3) z[j] = 0;
    }
    __syncthreads();
    unsigned int rk[(kI3 + 1) / 2];
#pragma unroll
    for (int it = 0; it < kI3; ++it) {
        unsigned int rank = 0;
        if (it * 32 < wroom) {
            unsigned int digit;
            asm("bfe.u32 %0, %1, %2, %3;" : "=r"(digit) : "r"(key[it]), "n"(SHIFT), "n"(BITS));
            if (it * 32 >= room) digit = R;  // padding
            const unsigned int peers = (it + 1) * 32 <= wroom ? peers_of<BITS>(digit) : peers_of<BITS + 1>(digit);
            rank = sh.wc[warp][digit] + __popc(peers & lanes_below);
            if ((peers >> lane) == 1u) sh.wc[warp][digit] = static_cast<unsigned short>(rank + 1);
            __syncwarp();
        }
        if (it % 2 == 0) {
            rk[it / 2] = rank;
        } else {
            rk[it / 2] |= rank << 16;
        }
    }
    __syncthreads();
    // digit totals, their exclusive scan, then each warp's first slot in each digit's run
    unsigned int total = 0, inc = 0;
    if (tid < R) {
#pragma unroll
        for (int w = 0; w < kW3; ++w) total += sh.wc[w][tid];
        inc = total;
#pragma unroll
        for (int o = 1; o < 32; o <<= 1) {
            const unsigned int up = __shfl_up_sync(kFull, inc, o);
            if (lane >= o) inc += up;
        }
        if (lane == 31) sh.wsum[warp] = inc;
    }
    __syncthreads();
    if (tid < R) {
        unsigned int running = inc - total;
        for (int w = 0; w < warp; ++w) running += sh.wsum[w];
        sh.dstart[tid] = running;
        sh.dtotal[tid] = total;
#pragma unroll
        for (int w = 0; w < kW3; ++w) {
            const unsigned int c = sh.wc[w][tid];
            sh.wc[w][tid] = static_cast<unsigned short>(running);
            running += c;
        }
    }
    __syncthreads();
#pragma unroll
    for (int it = 0; it < kI3; ++it) {
        if (it * 32 < room) {
            unsigned int digit;  // extracted again (opaque): keeping the rank loop's digits live costs kI3 registers
            asm volatile("bfe.u32 %0, %1, %2, %3;" : "=r"(digit) : "r"(key[it]), "n"(SHIFT), "n"(BITS));
            const unsigned int r = (rk[it / 2] >> (16 * (it % 2))) & 0xFFFFu;
            emit(it, digit, sh.wc[warp][digit] + r);
        }
    }
}

// The on-chip passes move one packed word per pair: key bits 8..22 at bits 15..29, the pair's slot in
// the bucket (input order) at bits 0..14. Values and key bits 0..7 stay at that slot; the top 9 bits
// are the bucket's own.
constexpr int kSlotBits = 15;
constexpr unsigned int kSlotMask = (1u << kSlotBits) - 1u;
static_assert(kRem == 23 && kCap <= (1 << kSlotBits), "packed word: 15 key bits + a 15-bit slot");
static_assert(lp_bits(0) == 8 && lp_bits(1) == 8 && lp_bits(2) == 7, "passes of 8, 8, 7 bits");
// one on-chip LSD pass over packed words: rank by bits [SHIFT, SHIFT+BITS) of w, move w to its new
// slot (FIRST: w is the key itself, and the packed word is built as it moves), read back in slice order
template <int SHIFT, int BITS, bool FIRST, bool LAST>
__device__ __forceinline__ void local_pass_pk(unsigned int (&w)[kI3], int room, int wroom, LocalShared& sh) {
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int base = warp * kWT3 + lane;
    rank_chunk<SHIFT, BITS>(w, room, wroom, sh, [&](int it, unsigned int, unsigned int p) {
        sh.pk[p] = FIRST ? (((w[it] >> 8) & kSlotMask) << kSlotBits) | static_cast<unsigned int>(base + it * 32) : w[it];
    });
    __syncthreads();
    if (!LAST) {
#pragma unroll
        for (int it = 0; it < kI3; ++it)
            if (it * 32 < room) w[it] = sh.pk[base + it * 32];
    }
}

// slow path for a bucket over the on-chip capacity: chunked stable LSD passes through global memory
template <int SHIFT, int BITS>
__device__ __forceinline__ void global_pass(int m, const unsigned int* src_k, const int* src_v, unsigned int* dst_k, int* dst_v, bool& moved,
                            LocalShared& sh) {
    constexpr int R = 1 << BITS;
    constexpr unsigned int M = R - 1;
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    for (int d = tid; d < 256; d += kT3) sh.run[d] = 0;
    __syncthreads();
    for (int i = tid; i < m; i += kT3) atomicAdd(&sh.run[(src_k[i] >> SHIFT) & M], 1u);
    __syncthreads();
    const bool trivial = sh.run[(src_k[0] >> SHIFT) & M] == static_cast<unsigned int>(m);
    __syncthreads();
    if (trivial) {
        moved = false;
        return;
    }
    if (tid == 0) {
        unsigned int r = 0;
        for (int d = 0; d < R; ++d) {
            const unsigned int c = sh.run[d];
            sh.run[d] = r;
            r += c;
        }
    }
    __syncthreads();
    for (int base = 0; base < m; base += kCap) {
        const int wroom = m - base - warp * kWT3;
        const int room = wroom - lane;
        unsigned int key[kI3];
        int val[kI3];
        const int off = base + warp * kWT3 + lane;
#pragma unroll
        for (int it = 0; it < kI3; ++it) {
            const bool ok = it * 32 < room;
            key[it] = ok ? src_k[off + it * 32] : 0u;
            val[it] = ok ? src_v[off + it * 32] : 0;
        }
        rank_chunk<SHIFT, BITS>(key, room, wroom, sh, [&](int it, unsigned int d, unsigned int p) {
            const unsigned int dst = sh.run[d] + p - sh.dstart[d];
            dst_k[dst] = key[it];
            dst_v[dst] = val[it];
        });
        __syncthreads();
        for (int d = tid; d < R; d += kT3) sh.run[d] += sh.dtotal[d];
        __syncthreads();
    }
    moved = true;
}

// one slow-path pass, then the source and destination swap if it moved the pairs
template <int P>
__device__ __forceinline__ void big_pass(int m, unsigned int*& ck, int*& cv, unsigned int*& ok_, int*& ov, bool& in_tmp,
                                         LocalShared& sh) {
    bool moved;
    global_pass<lp_shift(P), lp_bits(P)>(m, ck, cv, ok_, ov, moved, sh);
    if (moved) {
        unsigned int* tk = ck;
        ck = ok_;
        ok_ = tk;
        int* tv = cv;
        cv = ov;
        ov = tv;
        in_tmp = !in_tmp;
    }
    __syncthreads();
}

// a bucket over the on-chip capacity: ping-pong between its scratch range and its output range
__device__ __noinline__ void big_bucket(int m, unsigned int* ck, int* cv, unsigned int* ok_, int* ov, LocalShared& sh) {
    const int tid = threadIdx.x;
    bool in_tmp = true;
    big_pass<0>(m, ck, cv, ok_, ov, in_tmp, sh);
    big_pass<1>(m, ck, cv, ok_, ov, in_tmp, sh);
    big_pass<2>(m, ck, cv, ok_, ov, in_tmp, sh);
    if (in_tmp) {
        for (int i = tid; i < m; i += kT3) {
            ok_[i] = ck[i];
            ov[i] = cv[i];
        }
    }
}

__global__ void __launch_bounds__(kT3, kMinBlocks3)
    bucket_sort(unsigned int* tmp_k, int* tmp_v, unsigned int* out_k, int* out_v, const unsigned int* __restrict__ bucket_start) {
    extern __shared__ __align__(16) unsigned char shared_bytes[];
    LocalShared& sh = *reinterpret_cast<LocalShared*>(shared_bytes);
    pdl_wait_prev();  // the buckets come from the scatter kernel
    const int b = blockIdx.x;
    const unsigned int s = __ldcg(bucket_start + b);
    const int m = static_cast<int>(__ldcg(bucket_start + b + 1) - s);
    if (m == 0) return;
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    if (m > kCap) {
        big_bucket(m, tmp_k + s, tmp_v + s, out_k + s, out_v + s, sh);
        return;
    }
    const int wroom = m - warp * kWT3;
    const int room = wroom - lane;
    unsigned int key[kI3];
    {
        const int base = warp * kWT3 + lane;
        const unsigned int* lk = tmp_k + s + base;
        const int* lv = tmp_v + s + base;
#pragma unroll
        for (int it = 0; it < kI3; ++it) key[it] = it * 32 < room ? __ldcs(lk + it * 32) : 0u;
        {
            int val[kI3];
#pragma unroll
            for (int it = 0; it < kI3; ++it) val[it] = it * 32 < room ? __ldcs(lv + it * 32) : 0;
#pragma unroll
            for (int it = 0; it < kI3; ++it)
                if (it * 32 < room) {
                    sh.v[base + it * 32] = val[it];
                    sh.lo8[base + it * 32] = static_cast<unsigned char>(key[it]);
                }
        }
    }
    local_pass_pk<0, 8, true, false>(key, room, wroom, sh);                     // key bits 0..7
    local_pass_pk<kSlotBits, 8, false, false>(key, room, wroom, sh);            // key bits 8..15
    local_pass_pk<kSlotBits + 8, 7, false, true>(key, room, wroom, sh);         // key bits 16..22
    {
        const unsigned int top = static_cast<unsigned int>(b) << kTopShift;
        for (int p = tid; p < m; p += kT3) {
            const unsigned int w = sh.pk[p];
            const unsigned int ix = w & kSlotMask;
            out_k[s + p] = top | ((w >> kSlotBits) << 8) | sh.lo8[ix];
            out_v[s + p] = sh.v[ix];
        }
    }
}

// ---------------------------------------------------------------- host
// Launch with programmatic stream serialization (a plain launch where that is refused).
template <typename... Params, typename... Args>
static void launch(void (*kernel)(Params...), int grid, int block, size_t smem, Args... args) {
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(grid);
    cfg.blockDim = dim3(block);
    cfg.dynamicSmemBytes = smem;
    cfg.stream = 0;
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr[0].val.programmaticStreamSerializationAllowed = 1;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    if (cudaLaunchKernelEx(&cfg, kernel, static_cast<Params>(args)...) == cudaSuccess) return;
    cudaGetLastError();
    kernel<<<grid, block, smem>>>(static_cast<Params>(args)...);
}

struct Scratch {
    unsigned int* keys = nullptr;
    int* vals = nullptr;
    unsigned char* control = nullptr;
    int n_cap = 0;
    size_t control_cap = 0;
    size_t word_bytes = 0;
    unsigned long long epoch = 0;
};

template <typename Word>
static void sort_impl(int n, const unsigned int* keys, const int* values, unsigned int* sorted_keys, int* sorted_values,
                      Scratch& s) {
    const int tiles = static_cast<int>((static_cast<long long>(n) + kTile - 1) / kTile);
    // control: hist[kBuckets], bucket_start[kBuckets+1], done counter, tile counter (padded), status
    const size_t head_bytes = ((sizeof(unsigned int) * (2 * kBuckets + 3) + 255) / 256) * 256;
    const size_t status_words = static_cast<size_t>(tiles) * kRadix;
    const size_t control_bytes = head_bytes + sizeof(Word) * status_words;
    if (control_bytes > s.control_cap) {
        if (s.control) cudaFree(s.control);
        if (cudaMalloc(&s.control, control_bytes) != cudaSuccess) {
            cudaGetLastError();
            s.control = nullptr;
            s.control_cap = 0;
            return;
        }
        s.control_cap = control_bytes;
        s.word_bytes = 0;
    }
    if (s.word_bytes != sizeof(Word) || s.epoch + 1 >= Status<Word>::kEpochs) {
        cudaMemsetAsync(s.control, 0, s.control_cap);
        s.word_bytes = sizeof(Word);
        s.epoch = 0;
    }
    ++s.epoch;
    const Word epoch = static_cast<Word>(s.epoch) << Status<Word>::kCountBits;
    unsigned int* hist = reinterpret_cast<unsigned int*>(s.control);
    unsigned int* bstart = hist + kBuckets;
    unsigned int* done = bstart + kBuckets + 1;
    unsigned int* tile_counter = done + 1;
    Word* status = reinterpret_cast<Word*>(s.control + head_bytes);

    static int sm_count = 0;
    if (sm_count == 0) {
        int device = 0;
        cudaGetDevice(&device);
        cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device);
        if (sm_count <= 0) sm_count = 1;
    }
    static bool attrs = false;
    if (!attrs) {
        cudaFuncSetAttribute(scatter_pass<Word>, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(sizeof(PassShared)));
        cudaFuncSetAttribute(bucket_sort, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(sizeof(LocalShared)));
        cudaFuncSetAttribute(scatter_pass<Word>, cudaFuncAttributePreferredSharedMemoryCarveout, 100);
        cudaFuncSetAttribute(bucket_sort, cudaFuncAttributePreferredSharedMemoryCarveout, 100);
        attrs = true;
    }
    const long long hb_needed = (static_cast<long long>(n) + 4 * kHistThreads * kHistUnroll - 1) / (4 * kHistThreads * kHistUnroll);
    // 2 blocks an SM (32 registers a thread): under PDL a block of (2) can fit beside them and start early
    const int hblocks = static_cast<int>(std::min(hb_needed, 2LL * sm_count));
    bucket_histogram<<<hblocks, kHistThreads>>>(n, keys, hist, bstart, done);
    launch(scatter_pass<Word>, tiles, kThreads, sizeof(PassShared), n, keys, values, s.keys, s.vals,
           static_cast<const unsigned int*>(bstart), tile_counter, epoch, status);
    launch(bucket_sort, kBuckets, kT3, sizeof(LocalShared), s.keys, s.vals, sorted_keys, sorted_values,
           static_cast<const unsigned int*>(bstart));
}

}  // namespace hb

void radix_sort_pairs(int n, const unsigned int* keys, const int* values, unsigned int* sorted_keys, int* sorted_values) {
    if (n <= 0) return;
    static hb::Scratch s;
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
            cudaGetLastError();
            if (got_keys) cudaFree(k);
            return;
        }
        s.keys = k;
        s.vals = v;
        s.n_cap = n;
    }
    if (n < (1 << 24)) {
        hb::sort_impl<unsigned int>(n, keys, values, sorted_keys, sorted_values, s);
    } else {
        hb::sort_impl<unsigned long long>(n, keys, values, sorted_keys, sorted_values, s);
    }
}
