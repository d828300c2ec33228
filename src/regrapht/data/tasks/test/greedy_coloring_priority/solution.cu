// steps: parallelize, algorithmic_change, strength_reduction, data_layout_transform, atomic_operations, read_only_cache, warp_aggregated_atomics
// Jones-Plassmann over a worklist of the uncolored vertices, one pass over the neighbours per try.
// The output array doubles as the state: color[v] >= 0 is a final color, and -(priority + 1) marks
// an uncolored vertex, so one gather tells both. A colored neighbour of an uncolored vertex always
// has the higher priority (a lower one waits for it), so the pass ORs the colors below 64 into a
// bitmask and the new color is the mask's lowest zero bit (larger colors, possible only at very
// high degree, fall back to a counting search). A vertex that still waits is pushed to the next
// worklist with one atomicAdd per coalesced set of lanes; rounds shrink with the worklist.
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

constexpr int kThreads = 256;

__device__ __forceinline__ void push(int* queue, int* count, int v) {
    cg::coalesced_group g = cg::coalesced_threads();
    int base = 0;
    if (g.thread_rank() == 0) base = atomicAdd(count, static_cast<int>(g.size()));
    base = g.shfl(base, 0);
    queue[base + g.thread_rank()] = v;
}

__global__ void jp_init(int vertices, const int* __restrict__ priority, int* color, int* queue) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= vertices) return;
    color[v] = -(priority[v] + 1);
    queue[v] = v;
}

// Smallest color >= 64 that no (colored) neighbour of v has; only for vertices of very high degree.
__device__ int smallest_free_from_64(int begin, int end, const int* __restrict__ col_idx, const int* color) {
    for (int c = 64;; ++c) {
        bool used = false;
        for (int e = begin; e < end && !used; ++e) used = color[col_idx[e]] == c;
        if (!used) return c;
    }
}

__global__ void __launch_bounds__(kThreads)
    jp_round(const int* __restrict__ in_q, int in_n, int* out_q, int* out_n, const int* __restrict__ row_ptr,
             const int* __restrict__ col_idx, int* color) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= in_n) return;
    const int v = in_q[i];
    const int mine = color[v];  // -(priority + 1): a larger priority is a more negative value
    const int begin = row_ptr[v], end = row_ptr[v + 1];
    unsigned long long used = 0;
    for (int e = begin; e < end; ++e) {
        const int s = color[col_idx[e]];
        if (s >= 0) {
            if (s < 64) used |= 1ull << s;
        } else if (s < mine) {
            push(out_q, out_n, v);  // an uncolored neighbour of higher priority: wait
            return;
        }
    }
    color[v] = ~used ? __ffsll(static_cast<long long>(~used)) - 1 : smallest_free_from_64(begin, end, col_idx, color);
}

void greedy_coloring_priority(int vertices, int edges, const int* row_ptr, const int* col_idx, const int* priority,
                              int* color) {
    (void)edges;
    if (vertices <= 0) return;
    static int *queue_a = nullptr, *queue_b = nullptr, *count = nullptr;
    static int capacity = 0;
    if (vertices > capacity) {
        if (queue_a) {
            cudaFree(queue_a);
            cudaFree(queue_b);
        }
        cudaMalloc(&queue_a, static_cast<size_t>(vertices) * sizeof(int));
        cudaMalloc(&queue_b, static_cast<size_t>(vertices) * sizeof(int));
        capacity = vertices;
    }
    if (!count) cudaMalloc(&count, sizeof(int));
    jp_init<<<(vertices + kThreads - 1) / kThreads, kThreads>>>(vertices, priority, color, queue_a);
    int *in_q = queue_a, *out_q = queue_b;
    for (int n = vertices; n > 0;) {
        cudaMemsetAsync(count, 0, sizeof(int), 0);
        jp_round<<<(n + kThreads - 1) / kThreads, kThreads>>>(in_q, n, out_q, count, row_ptr, col_idx, color);
        cudaMemcpy(&n, count, sizeof(int), cudaMemcpyDeviceToHost);
        int* t = in_q;
        in_q = out_q;
        out_q = t;
    }
}
