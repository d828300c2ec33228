// Hybrid MSD radix sort of (uint32 key, int32 value) pairs.
// (1) histogram of the top HB_BITS bits + bucket starts (last-block-done scan)
// (2) one stable onesweep scatter pass by the top HB_BITS bits (into scratch)
// (3) one CTA per bucket sorts the remaining bits on chip (LSD, warp-level ranking), writes out
// Buckets over the on-chip capacity are sorted by the same CTA through global memory (slow path).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>

#ifndef HB_BITS
#define HB_BITS 10
#endif
#ifndef K2_THREADS
#define K2_THREADS 512
#endif
#ifndef K2_ITEMS
#define K2_ITEMS 12
#endif
#ifndef K2_MINBLOCKS
#define K2_MINBLOCKS 2
#endif
#ifndef K3_THREADS
#define K3_THREADS 512
#endif
#ifndef K3_ITEMS
#define K3_ITEMS 18
#endif
#ifndef K3_MINBLOCKS
#define K3_MINBLOCKS 2
#endif
#ifndef VALS_SMEM
#define VALS_SMEM 1
#endif
#ifndef K3_PACK
#define K3_PACK 0  // 1: K3 moves one packed word (key bits 8..22, original slot) per item; low key bytes stay put
#endif
#ifndef K2_PAIR64
#define K2_PAIR64 0
#endif
#ifndef FULLSKIP
#define FULLSKIP 0  // 1: full warps rank without the padding-bit ballot
#endif
#ifndef HB_PDL
#define HB_PDL 0  // 1: programmatic dependent launch (each kernel starts while the one before ends)
#endif
#ifndef K2_MATCH
#define K2_MATCH 0  // 1: __match_any_sync finds a lane's digit peers; 0: one ballot per digit bit
#endif
#ifndef K3_MATCH
#define K3_MATCH 1
#endif

#ifdef HB_BENCH
cudaEvent_t* g_prof_events = nullptr;  // bench hook: when set, events recorded between kernels
#define HAS_PROFILE 1
#endif

namespace hb {

constexpr unsigned int kFull = 0xffffffffu;
constexpr int kB = HB_BITS;
constexpr int kBuckets = 1 << kB;
constexpr int kTopShift = 32 - kB;

// ---------------------------------------------------------------- warp ranking
// The lanes of the warp whose digit equals this lane's (digits of NB bits; padding items carry the
// digit 1 << (NB - 1), one past the real ones, so they group apart without a separate in-range vote).
template <int NB, bool MATCH>
__device__ __forceinline__ unsigned int peers_of(unsigned int digit) {
    if (MATCH) return __match_any_sync(kFull, digit);
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
#if HB_PDL
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}
__device__ __forceinline__ void pdl_wait_prev() {
#if HB_PDL
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
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
constexpr int kThreads = K2_THREADS;
constexpr int kItems = K2_ITEMS;
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
#if K2_PAIR64
    uint2 staged[kTile];  // (key, value) pairs: one 8-byte store / load each
#else
    unsigned int staged_keys[kTile];
    int staged_vals[kTile];
#endif
    unsigned int digit_total[kRadix];
    unsigned int digit_local[kRadix];
    unsigned int digit_offset[kRadix];
    unsigned short warp_count[kWarps][kRadix + 2];  // column kRadix: padding items (never read)
};

template <typename Word>
__global__ void __launch_bounds__(kThreads, K2_MINBLOCKS)
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
    const int wroom2 = static_cast<int>(max(-1LL, min(static_cast<long long>(kWarpTile), n - slice)));  // warp-uniform
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
#if FULLSKIP
        const unsigned int peers = (it + 1) * 32 <= wroom2 ? peers_of<kB, K2_MATCH != 0>(digit) : peers_of<kB + 1, K2_MATCH != 0>(digit);
#else
        const unsigned int peers = peers_of<kB + 1, K2_MATCH != 0>(digit);
#endif
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
#if K2_PAIR64
            sh.staged[local] = make_uint2(key[it], static_cast<unsigned int>(val[it]));
#else
            sh.staged_keys[local] = key[it];
            sh.staged_vals[local] = val[it];
#endif
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
#if K2_PAIR64
            const uint2 kv = sh.staged[local];
            const unsigned int k = kv.x;
            const int sv = static_cast<int>(kv.y);
#else
            const unsigned int k = sh.staged_keys[local];
            const int sv = sh.staged_vals[local];
#endif
            const unsigned int pos = sh.digit_offset[k >> kTopShift] + static_cast<unsigned int>(local);
            keys_out[pos] = k;
            vals_out[pos] = sv;
        }
    }
}

// ---------------------------------------------------------------- K3: per-bucket on-chip sort
constexpr int kT3 = K3_THREADS;
constexpr int kI3 = K3_ITEMS;
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
#if K3_PACK
    unsigned int pk[kCap];     // packed: key bits 8..22 at 15..29, the item's original slot at 0..14
    int v[kCap];               // values, original order
    unsigned char lo8[kCap];   // key bits 0..7, original order
#else
    unsigned int k[kCap];
    int v[kCap];
#endif
#if VALS_SMEM && !K3_PACK
    unsigned short ix[kCap];  // a slot's original position in the bucket
#endif
    unsigned short wc[kW3][kWC];  // per warp and digit: count, then the digit run's first slot for the warp
    unsigned int dstart[256];
    unsigned int dtotal[256];
    unsigned int run[256];
    unsigned int wsum[8];
};

// Stable rank of a chunk (warp slices in order, item it of a lane at it*32+lane of its slice) by
// digit (key >> SHIFT) & mask. Leaves each item's chunk position (16-bit pairs) in pos, and the chunk's
// digit starts / totals in sh.dstart / sh.dtotal. wroom: the warp's valid items (uniform), room: lane's.
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
#if FULLSKIP
            const unsigned int peers = (it + 1) * 32 <= wroom ? peers_of<BITS, K3_MATCH != 0>(digit) : peers_of<BITS + 1, K3_MATCH != 0>(digit);
#else
            const unsigned int peers = peers_of<BITS + 1, K3_MATCH != 0>(digit);
#endif
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

__device__ __forceinline__ unsigned int pos_of(const unsigned int (&pos)[(kI3 + 1) / 2], int it) {
    return (pos[it / 2] >> (16 * (it % 2))) & 0xFFFFu;
}

#if K3_PACK
static_assert(kRem == 23 && kCap <= 32768, "packed word: 15 key bits + 15-bit slot");
// one on-chip LSD pass over packed words: rank by bits [SHIFT, SHIFT+BITS) of w, move w to its new
// slot (FIRST: w is the key itself, and the packed word is built as it moves), read back in slice order
template <int SHIFT, int BITS, bool FIRST, bool LAST>
__device__ __forceinline__ void local_pass_pk(unsigned int (&w)[kI3], int room, int wroom, LocalShared& sh) {
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int base = warp * kWT3 + lane;
    rank_chunk<SHIFT, BITS>(w, room, wroom, sh, [&](int it, unsigned int, unsigned int p) {
        sh.pk[p] = FIRST ? (((w[it] >> 8) & 0x7FFFu) << 15) | static_cast<unsigned int>(base + it * 32) : w[it];
    });
    __syncthreads();
    if (!LAST) {
#pragma unroll
        for (int it = 0; it < kI3; ++it)
            if (it * 32 < room) w[it] = sh.pk[base + it * 32];
    }
}
#else
// one on-chip LSD pass: rank, move to the new slots through shared memory, read back in slice order
template <int SHIFT, int BITS, bool LAST>
__device__ __forceinline__ void local_pass(unsigned int (&key)[kI3], int (&val)[kI3], int room, int wroom, LocalShared& sh) {
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    rank_chunk<SHIFT, BITS>(key, room, wroom, sh, [&](int it, unsigned int, unsigned int p) {
        sh.k[p] = key[it];
        sh.v[p] = val[it];
    });
    __syncthreads();
    if (!LAST) {
        const int base = warp * kWT3 + lane;
#pragma unroll
        for (int it = 0; it < kI3; ++it) {
            if (it * 32 < room) {
                key[it] = sh.k[base + it * 32];
                val[it] = sh.v[base + it * 32];
            }
        }
    }
}

// the same with the values left in place (sh.v, input order): a 16-bit original position moves instead
template <int SHIFT, int BITS, bool LAST>
__device__ __forceinline__ void local_pass_ix(unsigned int (&key)[kI3], unsigned int (&idx)[(kI3 + 1) / 2], int room, int wroom,
                                              LocalShared& sh) {
#if VALS_SMEM
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    rank_chunk<SHIFT, BITS>(key, room, wroom, sh, [&](int it, unsigned int, unsigned int p) {
        sh.k[p] = key[it];
        sh.ix[p] = static_cast<unsigned short>(pos_of(idx, it));
    });
    __syncthreads();
    if (!LAST) {
        const int base = warp * kWT3 + lane;
#pragma unroll
        for (int q = 0; q < (kI3 + 1) / 2; ++q) {
            unsigned int packed = 0;
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const int it = 2 * q + h;
                if (it < kI3 && it * 32 < room) {
                    key[it] = sh.k[base + it * 32];
                    packed |= static_cast<unsigned int>(sh.ix[base + it * 32]) << (16 * h);
                }
            }
            idx[q] = packed;
        }
    }
#endif
}
#endif

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

// a bucket over the on-chip capacity: ping-pong between its scratch range and its output range
__device__ __noinline__ void big_bucket(int m, unsigned int* ck, int* cv, unsigned int* ok_, int* ov, LocalShared& sh) {
    const int tid = threadIdx.x;
    bool in_tmp = true, moved;
#define HB_GPASS(P)                                                                              \
    global_pass<lp_shift(P), lp_bits(P)>(m, ck, cv, ok_, ov, moved, sh);                          \
    if (moved) {                                                                                 \
        unsigned int* tk = ck;                                                                   \
        ck = ok_;                                                                                \
        ok_ = tk;                                                                                \
        int* tv = cv;                                                                            \
        cv = ov;                                                                                 \
        ov = tv;                                                                                 \
        in_tmp = !in_tmp;                                                                        \
    }                                                                                            \
    __syncthreads();
    HB_GPASS(0)
    HB_GPASS(1)
    HB_GPASS(2)
#undef HB_GPASS
    if (in_tmp) {
        for (int i = tid; i < m; i += kT3) {
            ok_[i] = ck[i];
            ov[i] = cv[i];
        }
    }
}

__global__ void __launch_bounds__(kT3, K3_MINBLOCKS)
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
#ifndef NO_BIG
        big_bucket(m, tmp_k + s, tmp_v + s, out_k + s, out_v + s, sh);
#endif
        return;
    }
    const int wroom = m - warp * kWT3;
    const int room = wroom - lane;
    unsigned int key[kI3];
#if K3_PACK
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
    local_pass_pk<0, 8, true, false>(key, room, wroom, sh);
    local_pass_pk<15, 8, false, false>(key, room, wroom, sh);
    local_pass_pk<23, 7, false, true>(key, room, wroom, sh);
    {
        const unsigned int top = static_cast<unsigned int>(b) << kTopShift;
        for (int p = tid; p < m; p += kT3) {
            const unsigned int w = sh.pk[p];
            const unsigned int ix = w & 0x7FFFu;
            out_k[s + p] = top | ((w >> 15) << 8) | sh.lo8[ix];
            out_v[s + p] = sh.v[ix];
        }
    }
#elif VALS_SMEM
    unsigned int idx[(kI3 + 1) / 2];
    {
        const int base = warp * kWT3 + lane;
        const unsigned int* lk = tmp_k + s + base;
        const int* lv = tmp_v + s + base;
#pragma unroll
        for (int it = 0; it < kI3; ++it) {
            const bool ok = it * 32 < room;
            key[it] = ok ? __ldcs(lk + it * 32) : 0u;
        }
        {
            int val[kI3];  // all loads issued before the first shared store (kept apart, they serialize)
#pragma unroll
            for (int it = 0; it < kI3; ++it) val[it] = it * 32 < room ? __ldcs(lv + it * 32) : 0;
#pragma unroll
            for (int it = 0; it < kI3; ++it)
                if (it * 32 < room) sh.v[base + it * 32] = val[it];
        }
#pragma unroll
        for (int q = 0; q < (kI3 + 1) / 2; ++q)
            idx[q] = static_cast<unsigned int>(base + 64 * q) | (static_cast<unsigned int>(base + 64 * q + 32) << 16);
    }
    local_pass_ix<lp_shift(0), lp_bits(0), false>(key, idx, room, wroom, sh);
    local_pass_ix<lp_shift(1), lp_bits(1), false>(key, idx, room, wroom, sh);
    local_pass_ix<lp_shift(2), lp_bits(2), true>(key, idx, room, wroom, sh);
    for (int p = tid; p < m; p += kT3) {
        out_k[s + p] = sh.k[p];
        out_v[s + p] = sh.v[sh.ix[p]];
    }
#else
    int val[kI3];
    {
        const unsigned int* lk = tmp_k + s + warp * kWT3 + lane;
        const int* lv = tmp_v + s + warp * kWT3 + lane;
#pragma unroll
        for (int it = 0; it < kI3; ++it) {
            const bool ok = it * 32 < room;
            key[it] = ok ? __ldcs(lk + it * 32) : 0u;
            val[it] = ok ? __ldcs(lv + it * 32) : 0;
        }
    }
    local_pass<lp_shift(0), lp_bits(0), false>(key, val, room, wroom, sh);
    local_pass<lp_shift(1), lp_bits(1), false>(key, val, room, wroom, sh);
    local_pass<lp_shift(2), lp_bits(2), true>(key, val, room, wroom, sh);
    for (int p = tid; p < m; p += kT3) {
        out_k[s + p] = sh.k[p];
        out_v[s + p] = sh.v[p];
    }
#endif
}

// ---------------------------------------------------------------- host
// Launch with programmatic stream serialization when HB_PDL (plain launch where that is refused).
template <typename... Params, typename... Args>
static void launch(void (*kernel)(Params...), int grid, int block, size_t smem, Args... args) {
#if HB_PDL
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
#endif
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

inline void prof(int i) {
#ifdef HB_BENCH
    if (g_prof_events) cudaEventRecord(g_prof_events[i]);
#else
    (void)i;
#endif
}

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
    prof(0);
    const long long hb_needed = (static_cast<long long>(n) + 4 * kHistThreads * kHistUnroll - 1) / (4 * kHistThreads * kHistUnroll);
    const int hblocks = static_cast<int>(std::min(hb_needed, 4LL * sm_count));  // 4 blocks an SM: loads in flight
    bucket_histogram<<<hblocks, kHistThreads>>>(n, keys, hist, bstart, done);
    prof(1);
    launch(scatter_pass<Word>, tiles, kThreads, sizeof(PassShared), n, keys, values, s.keys, s.vals,
           static_cast<const unsigned int*>(bstart), tile_counter, epoch, status);
    prof(2);
    launch(bucket_sort, kBuckets, kT3, sizeof(LocalShared), s.keys, s.vals, sorted_keys, sorted_values,
           static_cast<const unsigned int*>(bstart));
    prof(3);
}

#ifdef HB_BENCH
inline void report() {
    int a = 0, b = 0;
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&a, scatter_pass<unsigned int>, kThreads, sizeof(PassShared));
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&b, bucket_sort, kT3, sizeof(LocalShared));
    printf("OCCUPANCY scatter_pass %d blocks/SM (%d thr, %zu B smem); bucket_sort %d blocks/SM (%d thr, %zu B smem); cap %d\n", a,
           kThreads, sizeof(PassShared), b, kT3, sizeof(LocalShared), kCap);
}
#define HB_REPORT 1
#endif

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
