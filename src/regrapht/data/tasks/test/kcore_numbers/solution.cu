// steps: parallelize, algorithmic_change, work_decomposition, memory_coalescing, atomic_operations, read_only_cache, warp_aggregated_atomics, atomic_privatization, persistent_kernel, cooperative_groups
// Worklist peeling. At level k one scan queues the remaining vertices of degree <= k; then only
// queued vertices are processed, each by a group of four lanes reading its adjacency contiguously.
// A neighbour whose degree the atomic decrement takes from k + 1 to k is queued at that moment
// (exactly one decrement sees k + 1, so it is queued once), and a vertex is marked with its core
// number when it is queued, so later decrements skip it. Passes touch only the peeled frontier
// instead of every vertex. Pushes go to a block's shared-memory queue (one shared atomic per
// coalesced set of lanes), whose room in the next worklist is reserved with one global atomic per
// block and written out coalesced (a full block queue sends the overflow straight to the global one).
//
// Every level and pass runs in one persistent cooperative kernel (grid sized by the occupancy API,
// grid.sync() between passes): a peeling cascade is a long run of passes over small worklists, so a
// host round trip per pass (the solution before this one, 0.91x naive) cost more than the passes'
// work, and its one-hop-per-pass worklist needs at least as many passes as naive.cu's sweeps, whose
// in-pass atomics let a removal cascade within one pass. A per-pass launch loop is the fallback where a
// cooperative launch is refused. Degrees, core numbers and queues change during the kernel, so they
// are read through L2 (__ldcg), never from a stale L1 line.
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

constexpr int kThreads = 256;
constexpr int kGroup = 4;          // lanes per queued vertex
constexpr int kBlockQueue = 1024;  // a block's shared queue (4 KB)

struct BlockQueue {
    int items[kBlockQueue];
    int n, base;
};

// Appends v to the block's shared queue (one shared atomic per coalesced set of lanes); past its
// capacity, to the global queue directly.
__device__ __forceinline__ void block_push(BlockQueue& bq, int* queue, int* count, int v) {
    cg::coalesced_group g = cg::coalesced_threads();
    int base = 0;
    if (g.thread_rank() == 0) base = atomicAdd(&bq.n, static_cast<int>(g.size()));
    const int slot = g.shfl(base, 0) + static_cast<int>(g.thread_rank());
    if (slot < kBlockQueue) bq.items[slot] = v;
    else queue[atomicAdd(count, 1)] = v;
}

// Writes the block's queue out (every thread of the block calls it) and empties it.
__device__ __forceinline__ void block_flush(BlockQueue& bq, int* queue, int* count) {
    __syncthreads();
    const int held = min(bq.n, kBlockQueue);
    if (threadIdx.x == 0 && held > 0) bq.base = atomicAdd(count, held);
    __syncthreads();
    for (int i = threadIdx.x; i < held; i += blockDim.x) queue[bq.base + i] = bq.items[i];
    __syncthreads();
    if (threadIdx.x == 0) bq.n = 0;
}

// Queues the remaining vertices of degree <= k, marking them with core number k.
__device__ __forceinline__ void scan_level(int vertices, int k, long long first, long long stride, int* deg,
                                           int* core, BlockQueue& bq, int* out_q, int* out_n) {
    for (long long v = first; v < vertices; v += stride)
        if (__ldcg(core + v) < 0 && __ldcg(deg + v) <= k) {
            core[v] = k;
            block_push(bq, out_q, out_n, static_cast<int>(v));
        }
}

// Peels the queued vertices: each group of kGroup lanes lowers one vertex's neighbours' degrees.
__device__ __forceinline__ void peel(int k, const int* in_q, int in_n, long long first_item, long long item_stride,
                                     const int* __restrict__ row_ptr, const int* __restrict__ col_idx, int* deg,
                                     int* core, BlockQueue& bq, int* out_q, int* out_n) {
    const int lane = threadIdx.x % kGroup;
    for (long long item = first_item; item < in_n; item += item_stride) {
        const int v = __ldcg(in_q + item);
        const int end = __ldg(row_ptr + v + 1);
        for (int e = __ldg(row_ptr + v) + lane; e < end; e += kGroup) {
            const int u = __ldg(col_idx + e);
            if (__ldcg(core + u) >= 0) continue;  // already peeled or queued: its degree no longer matters
            if (atomicSub(&deg[u], 1) == k + 1) {
                core[u] = k;
                block_push(bq, out_q, out_n, u);
            }
        }
    }
}

__global__ void __launch_bounds__(kThreads)
    kcore_persistent(int vertices, const int* __restrict__ row_ptr, const int* __restrict__ col_idx, int* deg,
                     int* core, int* q0, int* q1, int* count) {
    __shared__ BlockQueue bq;
    cg::grid_group grid = cg::this_grid();
    const long long tid = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    const long long nthreads = static_cast<long long>(gridDim.x) * blockDim.x;
    for (long long v = tid; v < vertices; v += nthreads) {
        deg[v] = __ldg(row_ptr + v + 1) - __ldg(row_ptr + v);
        core[v] = -1;
    }
    if (tid == 0) count[0] = count[1] = count[2] = 0;
    if (threadIdx.x == 0) bq.n = 0;
    grid.sync();
    int* in_q = q0;
    int* out_q = q1;
    int remaining = vertices;  // vertices not yet queued; every thread keeps the same tally
    int n = 0;                 // the current worklist's length; 0: scan for the level's first worklist
    int k = 0;
    for (int phase = 0;; ++phase) {
        // Phase p collects into count[(p + 1) % 3]; count[p % 3] (its input length) was read before
        // it began, and count[(p + 2) % 3], read by nobody now, is cleared for phase p + 1.
        int* out_n = &count[(phase + 1) % 3];
        if (tid == 0) count[(phase + 2) % 3] = 0;
        if (n == 0) scan_level(vertices, k, tid, nthreads, deg, core, bq, out_q, out_n);
        else peel(k, in_q, n, tid / kGroup, nthreads / kGroup, row_ptr, col_idx, deg, core, bq, out_q, out_n);
        block_flush(bq, out_q, out_n);
        grid.sync();
        int* t = in_q;
        in_q = out_q;
        out_q = t;
        n = *reinterpret_cast<volatile int*>(out_n);
        remaining -= n;
        if (remaining <= 0) break;  // every vertex has its core number; peeling the last changes none
        if (n == 0) ++k;            // the level's scan found nobody, or its cascade ended
    }
}

// Fallback path: the same phases, one launch each.
__global__ void kcore_init(int vertices, const int* __restrict__ row_ptr, int* deg, int* core) {
    const int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= vertices) return;
    deg[v] = row_ptr[v + 1] - row_ptr[v];
    core[v] = -1;
}

__global__ void __launch_bounds__(kThreads)
    kcore_phase(int vertices, int k, const int* in_q, int in_n, int* out_q, int* out_n,
                const int* __restrict__ row_ptr, const int* __restrict__ col_idx, int* deg, int* core) {
    __shared__ BlockQueue bq;
    if (threadIdx.x == 0) bq.n = 0;
    __syncthreads();
    const long long tid = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    const long long nthreads = static_cast<long long>(gridDim.x) * blockDim.x;
    if (in_n == 0) scan_level(vertices, k, tid, nthreads, deg, core, bq, out_q, out_n);
    else peel(k, in_q, in_n, tid / kGroup, nthreads / kGroup, row_ptr, col_idx, deg, core, bq, out_q, out_n);
    block_flush(bq, out_q, out_n);
}

void kcore_numbers(int vertices, int edges, const int* row_ptr, const int* col_idx, int* core) {
    (void)edges;
    if (vertices <= 0) return;
    static int *deg = nullptr, *queues = nullptr, *count = nullptr;
    static int capacity = 0;
    if (vertices > capacity) {
        if (deg) {
            cudaFree(deg);
            cudaFree(queues);
        }
        cudaMalloc(&deg, static_cast<size_t>(vertices) * sizeof(int));
        cudaMalloc(&queues, 2 * static_cast<size_t>(vertices) * sizeof(int));
        capacity = vertices;
    }
    if (!count) cudaMalloc(&count, 3 * sizeof(int));
    int* q0 = queues;
    int* q1 = queues + vertices;

    static int coop_blocks = 0;  // 0: not yet known, -1: cooperative launch unavailable
    if (coop_blocks == 0) {
        int dev = 0, sms = 0, coop = 0, per_sm = 0;
        cudaGetDevice(&dev);
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
        cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev);
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kcore_persistent, kThreads, 0);
        coop_blocks = (coop && per_sm > 0) ? per_sm * sms : -1;
    }
    if (coop_blocks > 0) {
        int nv = vertices;
        const int* rp = row_ptr;
        const int* ci = col_idx;
        int* dg = deg;
        int* co = core;
        int* c = count;
        void* args[] = {&nv, &rp, &ci, &dg, &co, &q0, &q1, &c};
        if (cudaLaunchCooperativeKernel(reinterpret_cast<void*>(kcore_persistent), dim3(coop_blocks), dim3(kThreads),
                                        args, 0, 0) == cudaSuccess)
            return;
        cudaGetLastError();  // clear the launch error and use the fallback
        coop_blocks = -1;
    }

    const int blocks = (vertices + kThreads - 1) / kThreads;
    kcore_init<<<blocks, kThreads>>>(vertices, row_ptr, deg, core);
    int *in_q = q0, *out_q = q1;
    int remaining = vertices, n = 0, k = 0;
    while (remaining > 0) {
        cudaMemsetAsync(count, 0, sizeof(int), 0);
        const long long threads = n == 0 ? vertices : static_cast<long long>(n) * kGroup;
        kcore_phase<<<static_cast<int>((threads + kThreads - 1) / kThreads), kThreads>>>(
            vertices, k, in_q, n, out_q, count, row_ptr, col_idx, deg, core);
        cudaMemcpy(&n, count, sizeof(int), cudaMemcpyDeviceToHost);
        int* t = in_q;
        in_q = out_q;
        out_q = t;
        remaining -= n;
        if (n == 0) ++k;
    }
}
