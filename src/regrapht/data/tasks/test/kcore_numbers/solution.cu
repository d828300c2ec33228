// steps: parallelize, algorithmic_change, work_decomposition, memory_coalescing, atomic_operations, read_only_cache, warp_aggregated_atomics, atomic_privatization
// Worklist peeling. At level k one scan queues the remaining vertices of degree <= k; then only
// queued vertices are processed, each by a group of four lanes reading its adjacency contiguously.
// A neighbour whose degree the atomic decrement takes from k + 1 to k is queued at that moment
// (exactly one decrement sees k + 1, so it is queued once), and a vertex is marked with its core
// number when it is queued, so later decrements skip it. Passes touch only the peeled frontier
// instead of every vertex. Pushes are aggregated to one atomic per coalesced set of lanes; a peel
// pass first collects its block's pushes in a shared-memory queue and reserves their room in the
// next worklist with one global atomic per block, written out coalesced (a full block queue sends
// the overflow straight to the global one).
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

constexpr int kThreads = 256;
constexpr int kGroup = 4;  // lanes per queued vertex
constexpr int kBlockQueue = 1024;  // a peel block's shared queue (4 KB)

__device__ __forceinline__ void push(int* queue, int* count, int v) {
    cg::coalesced_group g = cg::coalesced_threads();
    int base = 0;
    if (g.thread_rank() == 0) base = atomicAdd(count, static_cast<int>(g.size()));
    base = g.shfl(base, 0);
    queue[base + g.thread_rank()] = v;
}

__global__ void kcore_init(int vertices, const int* __restrict__ row_ptr, int* deg, int* core) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= vertices) return;
    deg[v] = row_ptr[v + 1] - row_ptr[v];
    core[v] = -1;
}

__global__ void kcore_scan(int vertices, int k, const int* deg, int* core, int* queue, int* count) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= vertices || core[v] >= 0 || deg[v] > k) return;
    core[v] = k;
    push(queue, count, v);
}

// Appends v to the block's shared queue (one shared atomic per coalesced set of lanes); past its
// capacity, to the global queue directly.
__device__ __forceinline__ void block_push(int* block_q, int* block_n, int* queue, int* count, int v) {
    cg::coalesced_group g = cg::coalesced_threads();
    int base = 0;
    if (g.thread_rank() == 0) base = atomicAdd(block_n, static_cast<int>(g.size()));
    const int slot = g.shfl(base, 0) + static_cast<int>(g.thread_rank());
    if (slot < kBlockQueue) block_q[slot] = v;
    else queue[atomicAdd(count, 1)] = v;
}

__global__ void __launch_bounds__(kThreads)
    kcore_peel(int k, const int* __restrict__ in_q, int in_n, int* out_q, int* out_n, const int* __restrict__ row_ptr,
               const int* __restrict__ col_idx, int* deg, int* core) {
    __shared__ int block_q[kBlockQueue];
    __shared__ int block_n, block_base;
    if (threadIdx.x == 0) block_n = 0;
    __syncthreads();
    const long long tid = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    const long long item = tid / kGroup;
    if (item < in_n) {  // no early return: every thread reaches the barriers below
        const int lane = static_cast<int>(tid % kGroup);
        const int v = in_q[item];
        const int end = row_ptr[v + 1];
        for (int e = row_ptr[v] + lane; e < end; e += kGroup) {
            const int u = col_idx[e];
            if (core[u] >= 0) continue;  // already peeled or queued: its degree no longer matters
            if (atomicSub(&deg[u], 1) == k + 1) {
                core[u] = k;
                block_push(block_q, &block_n, out_q, out_n, u);
            }
        }
    }
    __syncthreads();
    const int held = min(block_n, kBlockQueue);
    if (threadIdx.x == 0 && held > 0) block_base = atomicAdd(out_n, held);
    __syncthreads();
    for (int i = threadIdx.x; i < held; i += blockDim.x) out_q[block_base + i] = block_q[i];
}

void kcore_numbers(int vertices, int edges, const int* row_ptr, const int* col_idx, int* core) {
    (void)edges;
    if (vertices <= 0) return;
    static int *deg = nullptr, *queue_a = nullptr, *queue_b = nullptr, *count = nullptr;
    static int capacity = 0;
    if (vertices > capacity) {
        if (deg) {
            cudaFree(deg);
            cudaFree(queue_a);
            cudaFree(queue_b);
        }
        cudaMalloc(&deg, static_cast<size_t>(vertices) * sizeof(int));
        cudaMalloc(&queue_a, static_cast<size_t>(vertices) * sizeof(int));
        cudaMalloc(&queue_b, static_cast<size_t>(vertices) * sizeof(int));
        capacity = vertices;
    }
    if (!count) cudaMalloc(&count, sizeof(int));
    const int blocks = (vertices + kThreads - 1) / kThreads;
    kcore_init<<<blocks, kThreads>>>(vertices, row_ptr, deg, core);
    int remaining = vertices;
    for (int k = 0; remaining > 0; ++k) {
        int n = 0;
        cudaMemsetAsync(count, 0, sizeof(int), 0);
        kcore_scan<<<blocks, kThreads>>>(vertices, k, deg, core, queue_a, count);
        cudaMemcpy(&n, count, sizeof(int), cudaMemcpyDeviceToHost);
        int *in_q = queue_a, *out_q = queue_b;
        while (n > 0) {
            remaining -= n;
            cudaMemsetAsync(count, 0, sizeof(int), 0);
            const long long threads = static_cast<long long>(n) * kGroup;
            kcore_peel<<<static_cast<int>((threads + kThreads - 1) / kThreads), kThreads>>>(k, in_q, n, out_q, count,
                                                                                            row_ptr, col_idx, deg, core);
            cudaMemcpy(&n, count, sizeof(int), cudaMemcpyDeviceToHost);
            int* t = in_q;
            in_q = out_q;
            out_q = t;
        }
    }
}
