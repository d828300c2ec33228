// regrapht-expect: parallelize, atomic_operations, read_only_cache, warp_aggregated_atomics
// Edge-parallel in-degrees with warp-aggregated atomics. In-degrees follow a power law, so a few hub
// vertices are the target of a large share of the edges and their counters take thousands of
// atomics each, serialized at one L2 address. __match_any_sync groups the lanes of a warp that hold
// the same target; the lowest lane of each group adds the group's size with one atomic. Lanes past
// the last edge join the full-mask match with target -1 and add nothing (blocks are whole warps).
constexpr int kThreads = 256;

__global__ void out_degree_kernel(int vertices, const int* __restrict__ row_ptr, int* __restrict__ out_degree) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v < vertices) out_degree[v] = row_ptr[v + 1] - row_ptr[v];
}

__global__ void in_degree_edges(int edges, const int* __restrict__ col_idx, int* in_degree) {
    const int e = blockIdx.x * blockDim.x + threadIdx.x;
    const int target = e < edges ? col_idx[e] : -1;
    const unsigned peers = __match_any_sync(0xffffffffu, target);
    if (target >= 0 && (threadIdx.x & 31) == __ffs(peers) - 1) atomicAdd(&in_degree[target], __popc(peers));
}

void degree_counts(int vertices, int edges, const int* row_ptr, const int* col_idx, int* out_degree,
                   int* in_degree) {
    if (vertices <= 0) return;
    cudaMemset(in_degree, 0, vertices * sizeof(int));
    out_degree_kernel<<<(vertices + kThreads - 1) / kThreads, kThreads>>>(vertices, row_ptr, out_degree);
    if (edges > 0) in_degree_edges<<<(edges + kThreads - 1) / kThreads, kThreads>>>(edges, col_idx, in_degree);
}
