// steps: algorithmic_change, work_decomposition, memory_coalescing, read_only_cache, grid_stride_loop
// ECL-CC style union-find instead of label propagation: each vertex starts pointing at its
// smallest smaller neighbour, every undirected edge is hooked once by linking the larger of the two
// roots under the smaller with atomicCAS (parents only ever decrease, so every root is the minimum
// of its tree), finds halve paths as they walk, and a last pass points every vertex at its root.
// Low-degree vertices hook their edges one thread per vertex; vertices with more than 16 edges are
// queued and handled by a whole warp reading the edge list coalesced. Graph reads use __ldg.
constexpr int kThreads = 256;
constexpr int kWarpDegree = 16;

__device__ __forceinline__ int representative(int v, int* parent) {
    int curr = parent[v];
    if (curr != v) {
        int prev = v, next;
        while (curr > (next = parent[curr])) {
            parent[prev] = next;  // path halving: only ever moves a pointer to an ancestor
            prev = curr;
            curr = next;
        }
    }
    return curr;
}

__device__ __forceinline__ void hook(int u, int v, int* parent) {
    int ru = representative(u, parent), rv = representative(v, parent);
    while (ru != rv) {
        if (ru < rv) {
            int old = atomicCAS(&parent[rv], rv, ru);
            if (old == rv) break;
            rv = old;
        } else {
            int old = atomicCAS(&parent[ru], ru, rv);
            if (old == ru) break;
            ru = old;
        }
    }
}

__global__ void cc_init(int vertices, const int* __restrict__ row_ptr, const int* __restrict__ col_idx, int* parent,
                        int* heavy, int* heavy_count) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= vertices) return;
    const int begin = __ldg(row_ptr + v), end = __ldg(row_ptr + v + 1);
    int p = v;
    if (begin < end) p = min(v, __ldg(col_idx + begin));  // rows are sorted: the first entry is the smallest
    parent[v] = p;
    if (end - begin > kWarpDegree) heavy[atomicAdd(heavy_count, 1)] = v;
}

__global__ void cc_hook_light(int vertices, const int* __restrict__ row_ptr, const int* __restrict__ col_idx,
                              int* parent) {
    int u = blockIdx.x * blockDim.x + threadIdx.x;
    if (u >= vertices) return;
    const int begin = __ldg(row_ptr + u), end = __ldg(row_ptr + u + 1);
    if (end - begin > kWarpDegree) return;
    for (int e = begin; e < end; ++e) {
        const int v = __ldg(col_idx + e);
        if (v > u) hook(u, v, parent);
    }
}

__global__ void cc_hook_heavy(const int* heavy, const int* heavy_count, const int* __restrict__ row_ptr,
                              const int* __restrict__ col_idx, int* parent) {
    const int lane = threadIdx.x & 31;
    const int warps = gridDim.x * (blockDim.x >> 5);
    const int count = *heavy_count;
    for (int w = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5); w < count; w += warps) {
        const int u = heavy[w];
        const int end = __ldg(row_ptr + u + 1);
        for (int e = __ldg(row_ptr + u) + lane; e < end; e += 32) {
            const int v = __ldg(col_idx + e);
            if (v > u) hook(u, v, parent);
        }
    }
}

__global__ void cc_finish(int vertices, int* parent, int* label) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= vertices) return;
    int p = parent[v];
    while (p != parent[p]) p = parent[p];
    label[v] = p;
}

void connected_components(int vertices, int edges, const int* row_ptr, const int* col_idx, int* label) {
    (void)edges;
    if (vertices <= 0) return;
    static int* scratch = nullptr;
    static int held = 0;
    if (vertices > held) {
        if (scratch) cudaFree(scratch);
        cudaMalloc(&scratch, (2 * static_cast<size_t>(vertices) + 1) * sizeof(int));
        held = vertices;
    }
    int* parent = scratch;
    int* heavy = scratch + vertices;
    int* heavy_count = scratch + 2 * static_cast<size_t>(vertices);
    cudaMemset(heavy_count, 0, sizeof(int));
    const int blocks = (vertices + kThreads - 1) / kThreads;
    cc_init<<<blocks, kThreads>>>(vertices, row_ptr, col_idx, parent, heavy, heavy_count);
    cc_hook_light<<<blocks, kThreads>>>(vertices, row_ptr, col_idx, parent);
    cc_hook_heavy<<<1024, kThreads>>>(heavy, heavy_count, row_ptr, col_idx, parent);
    cc_finish<<<blocks, kThreads>>>(vertices, parent, label);
}
