// steps: parallelize, algorithmic_change, work_decomposition, memory_coalescing, atomic_operations, read_only_cache
// Worklist peeling. At level k one scan queues the remaining vertices of degree <= k; then only
// queued vertices are processed, each by a group of four lanes reading its adjacency contiguously.
// A neighbour whose degree the atomic decrement takes from k + 1 to k is queued at that moment
// (exactly one decrement sees k + 1, so it is queued once), and a vertex is marked with its core
// number when it is queued, so later decrements skip it. Passes touch only the peeled frontier
// instead of every vertex, and pushes are aggregated to one atomicAdd per coalesced set of lanes.
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

constexpr int kThreads = 256;
constexpr int kGroup = 4;  // lanes per queued vertex

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

__global__ void __launch_bounds__(kThreads)
    kcore_peel(int k, const int* __restrict__ in_q, int in_n, int* out_q, int* out_n, const int* __restrict__ row_ptr,
               const int* __restrict__ col_idx, int* deg, int* core) {
    const long long tid = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    const long long item = tid / kGroup;
    if (item >= in_n) return;
    const int lane = static_cast<int>(tid % kGroup);
    const int v = in_q[item];
    const int end = row_ptr[v + 1];
    for (int e = row_ptr[v] + lane; e < end; e += kGroup) {
        const int u = col_idx[e];
        if (core[u] >= 0) continue;  // already peeled or queued: its degree no longer matters
        if (atomicSub(&deg[u], 1) == k + 1) {
            core[u] = k;
            push(out_q, out_n, u);
        }
    }
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
