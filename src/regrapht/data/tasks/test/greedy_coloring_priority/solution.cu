// steps: parallelize, algorithmic_change, strength_reduction, data_layout_transform, read_only_cache, persistent_kernel, cooperative_groups, launch_config_tuning, vectorized_access, loop_unrolling
// Jones-Plassmann rounds, all in one persistent cooperative kernel (grid sized by the occupancy API,
// grid.sync() between rounds; a per-round launch loop is the fallback where a cooperative launch is
// refused).
//
// Where the previous solution lost its time (1.97x naive on the H100): every round was a launch
// plus a device-to-host copy of the worklist size (the bench graph needs tens of rounds), and every
// waiting vertex was pushed with one atomicAdd on a single global counter per coalesced set of
// lanes: lanes leave their neighbour loops at different iterations, so the sets are small and the
// millions of pushes over all rounds queued at one L2 slice. Each try also rescanned the row from
// its start.
//
// Now:
// - Each warp owns a fixed slice of the vertices and keeps its own worklist of the slice's waiting
//   vertices, compacted with a ballot: no global atomic and no barrier inside a round. Its length
//   lives in a register across rounds (the kernel is persistent), and a block stores "some vertex
//   still waits" once per round (__syncthreads_or).
// - A waiting vertex resumes where it stopped. Its scan stops at the first uncolored
//   higher-priority neighbour; every neighbour before that was colored (so it has the higher
//   priority: a lower one waits for v) or is uncolored and lower (and stays irrelevant to v). The
//   colors seen so far are therefore final, and the worklist entry carries them: (v, resume
//   position, row end, state word) in one int4 and the 64-bit mask of colors below 64 seen so far.
// - The output array doubles as the state: color[v] >= 0 is final, -(priority + 1) marks an
//   uncolored vertex, so one gather per neighbour tells both. The new color is the mask's lowest zero
//   bit (a counting search above 64, possible only at degree >= 64).
// - Four neighbours are gathered per trip (all four loads in flight), shortening the chain of
//   dependent L2 round trips that a warp waits for.
// Colors written in a round are read through L2 (__ldcg), so a vertex may already see a neighbour
// colored earlier in the same round; a stale read only makes it wait one more round. The result is
// the priority-order greedy coloring under any interleaving: a vertex is colored only after all its
// higher-priority neighbours, from exactly their colors.
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;
constexpr int kWide = 4;  // neighbours gathered per trip

// Smallest color >= 64 that no (colored) neighbour of v has; only for vertices of very high degree.
__device__ int smallest_free_from_64(int begin, int end, const int* __restrict__ col_idx, const int* color) {
    for (int c = 64;; ++c) {
        bool used = false;
        for (int e = begin; e < end && !used; ++e) used = __ldcg(color + __ldg(col_idx + e)) == c;
        if (!used) return c;
    }
}

// Colors at.x (row end at.z, state word at.w) from neighbour at.y on; returns true when it must wait,
// with at.y and used advanced to the first uncolored higher-priority neighbour.
__device__ __forceinline__ bool try_color(int4& at, unsigned long long& used, const int* __restrict__ row_ptr,
                                          const int* __restrict__ col_idx, int* color) {
    const int mine = at.w, end = at.z;
    for (int e = at.y; e < end; e += kWide) {
        int s[kWide];
#pragma unroll
        for (int j = 0; j < kWide; ++j) s[j] = e + j < end ? __ldcg(color + __ldg(col_idx + e + j)) : -1;
        // -1 (priority 0, the lowest) never outranks v: the padding reads as a lower neighbour
        int stop = kWide;
#pragma unroll
        for (int j = kWide - 1; j >= 0; --j)
            if (s[j] < mine) stop = j;  // uncolored and of higher priority
#pragma unroll
        for (int j = 0; j < kWide; ++j)
            if (j < stop && s[j] >= 0 && s[j] < 64) used |= 1ull << s[j];
        if (stop < kWide) {
            at.y = e + stop;
            return true;
        }
    }
    color[at.x] = ~used ? __ffsll(static_cast<long long>(~used)) - 1
                        : smallest_free_from_64(__ldg(row_ptr + at.x), end, col_idx, color);
    return false;
}

// One round over a warp's slice [lo, hi): round 0 takes every vertex of the slice, later rounds the
// `pending` entries the warp kept. Returns how many wait again (the same value in every lane; every
// lane of the warp must call it).
__device__ int color_round(int round, int lo, int hi, int pending, const int4* in_at,
                           const unsigned long long* in_used, int4* out_at, unsigned long long* out_used,
                           const int* __restrict__ row_ptr, const int* __restrict__ col_idx,
                           const int* __restrict__ priority, int* color) {
    const int lane = threadIdx.x % 32;
    const int n = round == 0 ? hi - lo : pending;
    int kept = 0;
    for (int base = 0; base < n; base += 32) {
        const int i = base + lane;
        bool wait = false;
        int4 at = make_int4(0, 0, 0, 0);
        unsigned long long used = 0;
        if (i < n) {
            if (round == 0) {
                const int v = lo + i;
                at = make_int4(v, __ldg(row_ptr + v), __ldg(row_ptr + v + 1), -(__ldg(priority + v) + 1));
            } else {
                at = in_at[i];
                used = in_used[i];
            }
            wait = try_color(at, used, row_ptr, col_idx, color);
        }
        const unsigned ballot = __ballot_sync(0xffffffffu, wait);
        if (wait) {
            const int slot = kept + __popc(ballot & ((1u << lane) - 1u));
            out_at[slot] = at;
            out_used[slot] = used;
        }
        kept += __popc(ballot);
    }
    return kept;
}

__device__ __forceinline__ int slice_begin(int vertices, int warp, int warps) {
    return static_cast<int>(static_cast<long long>(vertices) * warp / warps);
}

__global__ void __launch_bounds__(kThreads)
    jp_persistent(int vertices, const int* __restrict__ row_ptr, const int* __restrict__ col_idx,
                  const int* __restrict__ priority, int* color, int4* at_a, unsigned long long* used_a, int4* at_b,
                  unsigned long long* used_b, int* flags) {
    cg::grid_group grid = cg::this_grid();
    const int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32, warps = gridDim.x * kWarps;
    const int lo = slice_begin(vertices, warp, warps), hi = slice_begin(vertices, warp + 1, warps);
    for (int v = lo + threadIdx.x % 32; v < hi; v += 32) color[v] = -(__ldg(priority + v) + 1);
    if (blockIdx.x == 0 && threadIdx.x == 0) flags[0] = 0;
    grid.sync();
    // this warp's worklists: the part of each buffer at its slice's offset (an entry per vertex fits)
    int4 *in_at = at_a + lo, *out_at = at_b + lo;
    unsigned long long *in_used = used_a + lo, *out_used = used_b + lo;
    int pending = 0;
    for (int round = 0;; ++round) {
        // round r raises flags[r % 3]; flags[(r + 1) % 3], read by nobody now, is cleared for round
        // r + 1, and flags[(r + 2) % 3] was read before round r began
        if (blockIdx.x == 0 && threadIdx.x == 0) flags[(round + 1) % 3] = 0;
        pending = color_round(round, lo, hi, pending, in_at, in_used, out_at, out_used, row_ptr, col_idx, priority,
                              color);
        if (__syncthreads_or(pending > 0) && threadIdx.x == 0) flags[round % 3] = 1;
        grid.sync();
        if (*reinterpret_cast<volatile int*>(&flags[round % 3]) == 0) break;
        int4* t = in_at;
        in_at = out_at;
        out_at = t;
        unsigned long long* u = in_used;
        in_used = out_used;
        out_used = u;
    }
}

// Fallback path: the same rounds and slices, one launch each; a warp's worklist length waits in
// warp_pending between launches.
__global__ void jp_init(int vertices, const int* __restrict__ priority, int* color) {
    const int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v < vertices) color[v] = -(__ldg(priority + v) + 1);
}

__global__ void __launch_bounds__(kThreads)
    jp_round(int round, int vertices, const int* __restrict__ row_ptr, const int* __restrict__ col_idx,
             const int* __restrict__ priority, int* color, const int4* in_at, const unsigned long long* in_used,
             int4* out_at, unsigned long long* out_used, int* warp_pending, int* waiting) {
    const int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32, warps = gridDim.x * kWarps;
    const int lo = slice_begin(vertices, warp, warps), hi = slice_begin(vertices, warp + 1, warps);
    const int kept = color_round(round, lo, hi, round == 0 ? 0 : warp_pending[warp], in_at + lo, in_used + lo,
                                 out_at + lo, out_used + lo, row_ptr, col_idx, priority, color);
    if (threadIdx.x % 32 == 0) {
        warp_pending[warp] = kept;
        if (kept > 0) *waiting = 1;
    }
}

void greedy_coloring_priority(int vertices, int edges, const int* row_ptr, const int* col_idx, const int* priority,
                              int* color) {
    (void)edges;
    if (vertices <= 0) return;
    static int4 *at_a = nullptr, *at_b = nullptr;
    static unsigned long long *used_a = nullptr, *used_b = nullptr;
    static int* flags = nullptr;
    static int capacity = 0;
    if (vertices > capacity) {
        if (at_a) {
            cudaFree(at_a);
            cudaFree(at_b);
            cudaFree(used_a);
            cudaFree(used_b);
        }
        cudaMalloc(&at_a, static_cast<size_t>(vertices) * sizeof(int4));
        cudaMalloc(&at_b, static_cast<size_t>(vertices) * sizeof(int4));
        cudaMalloc(&used_a, static_cast<size_t>(vertices) * sizeof(unsigned long long));
        cudaMalloc(&used_b, static_cast<size_t>(vertices) * sizeof(unsigned long long));
        capacity = vertices;
    }
    if (!flags) cudaMalloc(&flags, 3 * sizeof(int));

    static int coop_blocks = 0;  // 0: not yet known, -1: cooperative launch unavailable
    if (coop_blocks == 0) {
        int dev = 0, sms = 0, coop = 0, per_sm = 0;
        cudaGetDevice(&dev);
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
        cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev);
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, jp_persistent, kThreads, 0);
        coop_blocks = (coop && per_sm > 0) ? per_sm * sms : -1;
    }
    if (coop_blocks > 0) {
        int n = vertices;
        const int* rp = row_ptr;
        const int* ci = col_idx;
        const int* pr = priority;
        int* out = color;
        int4 *aa = at_a, *ab = at_b;
        unsigned long long *ua = used_a, *ub = used_b;
        int* f = flags;
        void* args[] = {&n, &rp, &ci, &pr, &out, &aa, &ua, &ab, &ub, &f};
        if (cudaLaunchCooperativeKernel(reinterpret_cast<void*>(jp_persistent), dim3(coop_blocks), dim3(kThreads),
                                        args, 0, 0) == cudaSuccess)
            return;
        cudaGetLastError();  // clear the launch error and use the fallback
        coop_blocks = -1;
    }

    // flags[0] collects "some vertex waits"; warp_pending keeps each warp's worklist length
    constexpr int kFallbackBlocks = 1024;
    static int* warp_pending = nullptr;
    if (!warp_pending) cudaMalloc(&warp_pending, kFallbackBlocks * kWarps * sizeof(int));
    jp_init<<<(vertices + kThreads - 1) / kThreads, kThreads>>>(vertices, priority, color);
    int4 *in_at = at_a, *out_at = at_b;
    unsigned long long *in_used = used_a, *out_used = used_b;
    for (int round = 0, waiting = 1; waiting; ++round) {
        cudaMemsetAsync(flags, 0, sizeof(int), 0);
        jp_round<<<kFallbackBlocks, kThreads>>>(round, vertices, row_ptr, col_idx, priority, color, in_at, in_used,
                                                out_at, out_used, warp_pending, flags);
        cudaMemcpy(&waiting, flags, sizeof(int), cudaMemcpyDeviceToHost);
        int4* t = in_at;
        in_at = out_at;
        out_at = t;
        unsigned long long* u = in_used;
        in_used = out_used;
        out_used = u;
    }
}
