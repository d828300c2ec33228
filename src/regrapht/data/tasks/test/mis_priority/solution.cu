// steps: parallelize, algorithmic_change, kernel_fusion, data_layout_transform, read_only_cache, persistent_kernel, cooperative_groups, launch_config_tuning, vectorized_access, loop_unrolling
// Luby rounds with fixed priorities, every round in one persistent cooperative kernel (grid sized by
// the occupancy API, grid.sync() between rounds: no host round trip per round; a per-round launch
// loop is the fallback where a cooperative launch is refused).
//
// Status and priority share one word per vertex (the priority while undecided, -2 once in the set,
// -1 once out), so a neighbour costs one gather instead of naive.cu's two. A visit stops at the first
// undecided neighbour that outranks the vertex (it waits for another round), or, outranked by none,
// joins the set and itself marks all its neighbours out: joining and excluding happen in the same
// pass, where naive.cu needs two kernels per round, each scanning the rows again.
//
// Where the previous solution lost its time (1.97x naive on the H100): every round scanned the whole
// vertex range with a thread per vertex, and a warp waited for its slowest lane's chain of dependent
// gathers (two neighbours per trip) even when one or two of its 32 vertices were still undecided, so
// every round cost nearly as much as the first; a waiting vertex also rescanned its row from the
// start. Now:
// - Each warp owns a fixed slice of the vertices and keeps its own worklist of the slice's waiting
//   vertices, compacted with a ballot: no global atomic (the worklist before that one queued ~0.73M
//   same-address atomics in its first round) and no barrier inside a round. Its length lives in a
//   register across rounds, and a block stores "some vertex still waits" once per round
//   (__syncthreads_or).
// - A waiting vertex resumes at the neighbour that stopped it: every neighbour before it was out
//   (final) or undecided and of lower priority, and a lower neighbour cannot join while the vertex is
//   undecided, so nothing before the resume point can change the verdict. A worklist entry is one
//   int4: (vertex, resume position, row end, unused).
// - Four neighbours are gathered per trip (all four loads in flight), shortening the chain of
//   dependent L2 round trips a warp waits for.
//
// Correctness under any interleaving: in/out never change once written, and only the higher of two
// adjacent undecided vertices can join (the lower one reads the higher's priority or -2), so a
// vertex joins exactly when every higher-priority neighbour is out: the priority-order greedy set.
// A neighbour in the set excludes a vertex wherever it sits in the row. A stale read (a neighbour
// decided later in the same round) only makes a vertex wait another round. Marks written during a
// round are read through L2 (__ldcg), so later blocks of the same round see earlier decisions.
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;
constexpr int kWide = 4;  // neighbours gathered per trip
constexpr int kIn = -2, kOut = -1;

// Decides at.x (resume position at.y, row end at.z) when it can; returns true when it waits, with
// at.y advanced to the neighbour that outranks it.
__device__ __forceinline__ bool visit(int4& at, const int* __restrict__ row_ptr, const int* __restrict__ col_idx,
                                      int* mark) {
    const int v = at.x, end = at.z;
    const int mine = __ldcg(mark + v);
    if (mine < 0) return false;  // decided (a neighbour that joined may have marked it out)
    for (int e = at.y; e < end; e += kWide) {
        int m[kWide];
#pragma unroll
        for (int j = 0; j < kWide; ++j) m[j] = e + j < end ? __ldcg(mark + __ldg(col_idx + e + j)) : kOut;
        bool beaten = false;
        int stop = kWide;
#pragma unroll
        for (int j = kWide - 1; j >= 0; --j) {
            beaten |= m[j] == kIn;
            if (m[j] > mine) stop = j;  // undecided and of higher priority
        }
        if (beaten) {
            mark[v] = kOut;
            return false;
        }
        if (stop < kWide) {
            at.y = e + stop;
            return true;
        }
    }
    mark[v] = kIn;
    // no neighbour can be in the set (see above), so each is undecided-and-lower or already out
    // (a self-loop, which a simple graph has none of, is skipped rather than trusted)
#pragma unroll 4
    for (int e = __ldg(row_ptr + v); e < end; ++e) {
        const int u = __ldg(col_idx + e);
        if (u != v) mark[u] = kOut;
    }
    return false;
}

// One round over a warp's slice [lo, hi): round 0 takes every vertex of the slice, later rounds the
// `pending` entries the warp kept. Returns how many wait again (the same value in every lane; every
// lane of the warp must call it).
__device__ int mis_round_pass(int round, int lo, int hi, int pending, const int4* in_at, int4* out_at,
                              const int* __restrict__ row_ptr, const int* __restrict__ col_idx, int* mark) {
    const int lane = threadIdx.x % 32;
    const int n = round == 0 ? hi - lo : pending;
    int kept = 0;
    for (int base = 0; base < n; base += 32) {
        const int i = base + lane;
        bool wait = false;
        int4 at = make_int4(0, 0, 0, 0);
        if (i < n) {
            if (round == 0) {
                const int v = lo + i;
                at = make_int4(v, __ldg(row_ptr + v), __ldg(row_ptr + v + 1), 0);
            } else {
                at = in_at[i];
            }
            wait = visit(at, row_ptr, col_idx, mark);
        }
        const unsigned ballot = __ballot_sync(0xffffffffu, wait);
        if (wait) out_at[kept + __popc(ballot & ((1u << lane) - 1u))] = at;
        kept += __popc(ballot);
    }
    return kept;
}

__device__ __forceinline__ int slice_begin(int vertices, int warp, int warps) {
    return static_cast<int>(static_cast<long long>(vertices) * warp / warps);
}

__global__ void __launch_bounds__(kThreads)
    mis_persistent(int vertices, const int* __restrict__ row_ptr, const int* __restrict__ col_idx,
                   const int* __restrict__ priority, int* mark, int4* at_a, int4* at_b, int* flags, int* in_set) {
    cg::grid_group grid = cg::this_grid();
    const int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32, warps = gridDim.x * kWarps;
    const int lo = slice_begin(vertices, warp, warps), hi = slice_begin(vertices, warp + 1, warps);
    for (int v = lo + threadIdx.x % 32; v < hi; v += 32) mark[v] = __ldg(priority + v);
    if (blockIdx.x == 0 && threadIdx.x == 0) flags[0] = 0;
    grid.sync();
    // this warp's worklists: the part of each buffer at its slice's offset (an entry per vertex fits)
    int4 *in_at = at_a + lo, *out_at = at_b + lo;
    int pending = 0;
    for (int round = 0;; ++round) {
        // round r raises flags[r % 3]; flags[(r + 1) % 3], read by nobody now, is cleared for round
        // r + 1, and flags[(r + 2) % 3] was read before round r began
        if (blockIdx.x == 0 && threadIdx.x == 0) flags[(round + 1) % 3] = 0;
        pending = mis_round_pass(round, lo, hi, pending, in_at, out_at, row_ptr, col_idx, mark);
        if (__syncthreads_or(pending > 0) && threadIdx.x == 0) flags[round % 3] = 1;
        grid.sync();
        if (*reinterpret_cast<volatile int*>(&flags[round % 3]) == 0) break;
        int4* t = in_at;
        in_at = out_at;
        out_at = t;
    }
    for (int v = lo + threadIdx.x % 32; v < hi; v += 32) in_set[v] = __ldcg(mark + v) == kIn ? 1 : 0;
}

// Fallback path: the same rounds and slices, one launch each; a warp's worklist length waits in
// warp_pending between launches.
__global__ void mis_init(int vertices, const int* __restrict__ priority, int* mark) {
    const int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v < vertices) mark[v] = __ldg(priority + v);
}

__global__ void __launch_bounds__(kThreads)
    mis_round(int round, int vertices, const int* __restrict__ row_ptr, const int* __restrict__ col_idx, int* mark,
              const int4* in_at, int4* out_at, int* warp_pending, int* undecided) {
    const int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32, warps = gridDim.x * kWarps;
    const int lo = slice_begin(vertices, warp, warps), hi = slice_begin(vertices, warp + 1, warps);
    const int kept = mis_round_pass(round, lo, hi, round == 0 ? 0 : warp_pending[warp], in_at + lo, out_at + lo,
                                    row_ptr, col_idx, mark);
    if (threadIdx.x % 32 == 0) {
        warp_pending[warp] = kept;
        if (kept > 0) *undecided = 1;
    }
}

__global__ void mis_write(int vertices, const int* mark, int* in_set) {
    const int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v < vertices) in_set[v] = mark[v] == kIn ? 1 : 0;
}

void mis_priority(int vertices, int edges, const int* row_ptr, const int* col_idx, const int* priority,
                  int* in_set) {
    (void)edges;
    if (vertices <= 0) return;
    static int *mark = nullptr, *flags = nullptr;
    static int4 *at_a = nullptr, *at_b = nullptr;
    static int capacity = 0;
    if (vertices > capacity) {
        if (mark) {
            cudaFree(mark);
            cudaFree(at_a);
            cudaFree(at_b);
        }
        cudaMalloc(&mark, static_cast<size_t>(vertices) * sizeof(int));
        cudaMalloc(&at_a, static_cast<size_t>(vertices) * sizeof(int4));
        cudaMalloc(&at_b, static_cast<size_t>(vertices) * sizeof(int4));
        capacity = vertices;
    }
    if (!flags) cudaMalloc(&flags, 3 * sizeof(int));

    static int coop_blocks = 0;  // 0: not yet known, -1: cooperative launch unavailable
    if (coop_blocks == 0) {
        int dev = 0, sms = 0, coop = 0, per_sm = 0;
        cudaGetDevice(&dev);
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
        cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev);
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, mis_persistent, kThreads, 0);
        coop_blocks = (coop && per_sm > 0) ? per_sm * sms : -1;
    }
    if (coop_blocks > 0) {
        int n = vertices;
        const int* rp = row_ptr;
        const int* ci = col_idx;
        const int* pr = priority;
        int* mk = mark;
        int4 *aa = at_a, *ab = at_b;
        int* f = flags;
        int* out = in_set;
        void* args[] = {&n, &rp, &ci, &pr, &mk, &aa, &ab, &f, &out};
        if (cudaLaunchCooperativeKernel(reinterpret_cast<void*>(mis_persistent), dim3(coop_blocks), dim3(kThreads),
                                        args, 0, 0) == cudaSuccess)
            return;
        cudaGetLastError();  // clear the launch error and use the fallback
        coop_blocks = -1;
    }

    // flags[0] collects "some vertex waits"; warp_pending keeps each warp's worklist length
    constexpr int kFallbackBlocks = 1024;
    static int* warp_pending = nullptr;
    if (!warp_pending) cudaMalloc(&warp_pending, kFallbackBlocks * kWarps * sizeof(int));
    const int blocks = (vertices + kThreads - 1) / kThreads;
    mis_init<<<blocks, kThreads>>>(vertices, priority, mark);
    int4 *in_at = at_a, *out_at = at_b;
    for (int round = 0, undecided = 1; undecided; ++round) {
        cudaMemsetAsync(flags, 0, sizeof(int), 0);
        mis_round<<<kFallbackBlocks, kThreads>>>(round, vertices, row_ptr, col_idx, mark, in_at, out_at,
                                                 warp_pending, flags);
        cudaMemcpy(&undecided, flags, sizeof(int), cudaMemcpyDeviceToHost);
        int4* t = in_at;
        in_at = out_at;
        out_at = t;
    }
    mis_write<<<blocks, kThreads>>>(vertices, mark, in_set);
}
