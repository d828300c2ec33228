// steps: parallelize, algorithmic_change, kernel_fusion, data_layout_transform, atomic_operations, read_only_cache, warp_aggregated_atomics
// One fused kernel per round over a worklist of the undecided vertices. Status and priority share
// one word per vertex (the priority while undecided, -2 once in the set, -1 once out), so a
// neighbour costs one gather instead of two. A vertex leaves as soon as it sees a neighbour in the
// set, joins when no undecided neighbour outranks it, and otherwise is pushed to the next worklist.
// Decisions read only final states (in/out never change), so a stale read merely defers a vertex
// and the result is still the priority-order greedy set; rounds shrink with the worklist.
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

constexpr int kThreads = 256;
constexpr int kIn = -2, kOut = -1;

__device__ __forceinline__ void push(int* queue, int* count, int v) {
    cg::coalesced_group g = cg::coalesced_threads();
    int base = 0;
    if (g.thread_rank() == 0) base = atomicAdd(count, static_cast<int>(g.size()));
    base = g.shfl(base, 0);
    queue[base + g.thread_rank()] = v;
}

__global__ void mis_init(int vertices, const int* __restrict__ priority, int* mark, int* queue) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= vertices) return;
    mark[v] = priority[v];
    queue[v] = v;
}

__global__ void __launch_bounds__(kThreads)
    mis_round(const int* __restrict__ in_q, int in_n, int* out_q, int* out_n, const int* __restrict__ row_ptr,
              const int* __restrict__ col_idx, int* mark) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= in_n) return;
    const int v = in_q[i];
    const int mine = mark[v];
    bool outranked = false;
    const int end = row_ptr[v + 1];
    for (int e = row_ptr[v]; e < end; ++e) {
        const int m = mark[col_idx[e]];
        if (m == kIn) {
            mark[v] = kOut;
            return;
        }
        outranked |= m > mine;
    }
    if (outranked) push(out_q, out_n, v);
    else mark[v] = kIn;
}

__global__ void mis_write(int vertices, const int* __restrict__ mark, int* in_set) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v < vertices) in_set[v] = mark[v] == kIn ? 1 : 0;
}

void mis_priority(int vertices, int edges, const int* row_ptr, const int* col_idx, const int* priority,
                  int* in_set) {
    (void)edges;
    if (vertices <= 0) return;
    static int *mark = nullptr, *queue_a = nullptr, *queue_b = nullptr, *count = nullptr;
    static int capacity = 0;
    if (vertices > capacity) {
        if (mark) {
            cudaFree(mark);
            cudaFree(queue_a);
            cudaFree(queue_b);
        }
        cudaMalloc(&mark, static_cast<size_t>(vertices) * sizeof(int));
        cudaMalloc(&queue_a, static_cast<size_t>(vertices) * sizeof(int));
        cudaMalloc(&queue_b, static_cast<size_t>(vertices) * sizeof(int));
        capacity = vertices;
    }
    if (!count) cudaMalloc(&count, sizeof(int));
    const int blocks = (vertices + kThreads - 1) / kThreads;
    mis_init<<<blocks, kThreads>>>(vertices, priority, mark, queue_a);
    int *in_q = queue_a, *out_q = queue_b;
    for (int n = vertices; n > 0;) {
        cudaMemsetAsync(count, 0, sizeof(int), 0);
        mis_round<<<(n + kThreads - 1) / kThreads, kThreads>>>(in_q, n, out_q, count, row_ptr, col_idx, mark);
        cudaMemcpy(&n, count, sizeof(int), cudaMemcpyDeviceToHost);
        int* t = in_q;
        in_q = out_q;
        out_q = t;
    }
    mis_write<<<blocks, kThreads>>>(vertices, mark, in_set);
}
