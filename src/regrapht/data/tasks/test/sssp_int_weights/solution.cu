// steps: parallelize, algorithmic_change, work_decomposition, memory_coalescing, atomic_operations, read_only_cache, warp_aggregated_atomics, atomic_privatization
// Data-driven Bellman-Ford: instead of relaxing every edge each round, only the vertices whose
// distance dropped in the previous round (the worklist) relax their out-edges, each by a group of
// four lanes reading its edge list contiguously. A vertex improved by atomicMin joins the next
// worklist once per round (a per-vertex round stamp de-duplicates it). A block collects its pushes
// in a shared-memory queue (one shared atomic per coalesced set of lanes), reserves their room in
// the next worklist with one global atomic, and writes them out coalesced; a full block queue sends
// the overflow straight to the global one. The host reads only the next worklist's length between
// rounds.
#include <climits>
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

constexpr int kThreads = 256;
constexpr int kGroup = 4;  // lanes per worklist vertex
constexpr int kBlockQueue = 1024;  // a block's shared queue (4 KB)

__global__ void sssp_init(int vertices, int source, int* dist, int* stamp, int* queue) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= vertices) return;
    dist[v] = v == source ? 0 : INT_MAX;
    stamp[v] = -1;
    if (v == source) queue[0] = source;
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
    sssp_relax_worklist(int round, const int* __restrict__ in_q, int in_n, int* out_q, int* out_n,
                        const int* __restrict__ row_ptr, const int* __restrict__ col_idx,
                        const int* __restrict__ weights, int* dist, int* stamp) {
    __shared__ int block_q[kBlockQueue];
    __shared__ int block_n, block_base;
    if (threadIdx.x == 0) block_n = 0;
    __syncthreads();
    const long long tid = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    const long long item = tid / kGroup;
    if (item < in_n) {  // no early return: every thread reaches the barriers below
        const int lane = static_cast<int>(tid % kGroup);
        const int u = in_q[item];
        // A stale (larger) du is harmless: if u improves later this round it re-enters the worklist.
        const int du = dist[u];
        const int end = row_ptr[u + 1];
        for (int e = row_ptr[u] + lane; e < end; e += kGroup) {
            const int v = col_idx[e];
            const int nd = du + weights[e];
            if (nd < dist[v] && nd < atomicMin(&dist[v], nd)) {
                if (atomicExch(&stamp[v], round) != round) block_push(block_q, &block_n, out_q, out_n, v);
            }
        }
    }
    __syncthreads();
    const int held = min(block_n, kBlockQueue);
    if (threadIdx.x == 0 && held > 0) block_base = atomicAdd(out_n, held);
    __syncthreads();
    for (int i = threadIdx.x; i < held; i += blockDim.x) out_q[block_base + i] = block_q[i];
}

__global__ void sssp_finish(int vertices, int* dist) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v < vertices && dist[v] == INT_MAX) dist[v] = -1;
}

void sssp_int_weights(int vertices, int edges, int source, const int* row_ptr, const int* col_idx, const int* weights,
                      int* dist) {
    (void)edges;
    if (vertices <= 0) return;
    static int *queue_a = nullptr, *queue_b = nullptr, *stamp = nullptr, *count = nullptr;
    static int capacity = 0;
    if (vertices > capacity) {
        if (queue_a) {
            cudaFree(queue_a);
            cudaFree(queue_b);
            cudaFree(stamp);
        }
        cudaMalloc(&queue_a, static_cast<size_t>(vertices) * sizeof(int));
        cudaMalloc(&queue_b, static_cast<size_t>(vertices) * sizeof(int));
        cudaMalloc(&stamp, static_cast<size_t>(vertices) * sizeof(int));
        capacity = vertices;
    }
    if (!count) cudaMalloc(&count, sizeof(int));
    const int blocks = (vertices + kThreads - 1) / kThreads;
    sssp_init<<<blocks, kThreads>>>(vertices, source, dist, stamp, queue_a);
    int in_n = (source >= 0 && source < vertices) ? 1 : 0;
    int *in_q = queue_a, *out_q = queue_b;
    for (int round = 0; in_n > 0; ++round) {
        cudaMemsetAsync(count, 0, sizeof(int), 0);
        const long long threads = static_cast<long long>(in_n) * kGroup;
        const int grid = static_cast<int>((threads + kThreads - 1) / kThreads);
        sssp_relax_worklist<<<grid, kThreads>>>(round, in_q, in_n, out_q, count, row_ptr, col_idx, weights, dist,
                                                stamp);
        cudaMemcpy(&in_n, count, sizeof(int), cudaMemcpyDeviceToHost);
        int* t = in_q;
        in_q = out_q;
        out_q = t;
    }
    sssp_finish<<<blocks, kThreads>>>(vertices, dist);
}
