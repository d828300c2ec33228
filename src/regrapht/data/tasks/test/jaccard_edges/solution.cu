// steps: parallelize, work_decomposition, algorithmic_change, read_only_cache
// One thread per edge (its source row found by binary search over row_ptr) so every thread has
// similar work and the per-edge outputs are written coalesced. The intersection walks the shorter
// list and binary-searches the longer one, narrowing the search window as it goes (the lists are
// sorted), and all graph reads go through the read-only cache.
__device__ __forceinline__ int row_of(const int* __restrict__ row_ptr, int vertices, int e) {
    int lo = 0, hi = vertices - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) >> 1;
        if (__ldg(row_ptr + mid) <= e) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

__device__ __forceinline__ int intersect(const int* __restrict__ col_idx, int a0, int a1, int b0, int b1) {
    if (a1 - a0 > b1 - b0) {  // make [a0, a1) the shorter list
        int t0 = a0, t1 = a1;
        a0 = b0;
        a1 = b1;
        b0 = t0;
        b1 = t1;
    }
    int shared = 0;
    int lo = b0;
    for (int a = a0; a < a1 && lo < b1; ++a) {
        const int key = __ldg(col_idx + a);
        int hi = b1;  // first position in [lo, b1) with value >= key
        while (lo < hi) {
            int mid = (lo + hi) >> 1;
            if (__ldg(col_idx + mid) < key) lo = mid + 1;
            else hi = mid;
        }
        if (lo < b1 && __ldg(col_idx + lo) == key) {
            ++shared;
            ++lo;
        }
    }
    return shared;
}

__global__ void jaccard_per_edge(int vertices, int edges, const int* __restrict__ row_ptr,
                                 const int* __restrict__ col_idx, int* __restrict__ common,
                                 float* __restrict__ jaccard) {
    int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= edges) return;
    const int u = row_of(row_ptr, vertices, e);
    const int v = __ldg(col_idx + e);
    const int u0 = __ldg(row_ptr + u), u1 = __ldg(row_ptr + u + 1);
    const int v0 = __ldg(row_ptr + v), v1 = __ldg(row_ptr + v + 1);
    const int shared = intersect(col_idx, u0, u1, v0, v1);
    common[e] = shared;
    jaccard[e] = static_cast<float>(shared) / static_cast<float>((u1 - u0) + (v1 - v0) - shared);
}

void jaccard_edges(int vertices, int edges, const int* row_ptr, const int* col_idx, int* common, float* jaccard) {
    if (vertices <= 0 || edges <= 0) return;
    jaccard_per_edge<<<(edges + 255) / 256, 256>>>(vertices, edges, row_ptr, col_idx, common, jaccard);
}
