// steps: parallelize, work_decomposition
// One thread per edge instead of per vertex: power-law hubs no longer serialize a warp, and edge
// arrays are read and written fully coalesced. Each thread finds its source row with a binary search
// over row_ptr (the upper levels of that search stay in L1/L2).
__device__ __forceinline__ int row_of(const int* row_ptr, int vertices, int e) {
    int lo = 0, hi = vertices - 1;  // last row r with row_ptr[r] <= e
    while (lo < hi) {
        int mid = (lo + hi + 1) >> 1;
        if (row_ptr[mid] <= e) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

__global__ void gcn_norm_edges(int vertices, int edges, const int* row_ptr,
                               const int* col_idx, const float* weights,
                               float* norm) {
    int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= edges) return;
    const int u = row_of(row_ptr, vertices, e);
    const int v = col_idx[e];
    const float du = 1.0f + (row_ptr[u + 1] - row_ptr[u]);
    const float dv = 1.0f + (row_ptr[v + 1] - row_ptr[v]);
    norm[e] = weights[e] / sqrtf(du * dv);
}

void gcn_edge_norm(int vertices, int edges, const int* row_ptr, const int* col_idx, const float* weights,
                   float* norm) {
    if (vertices <= 0 || edges <= 0) return;
    gcn_norm_edges<<<(edges + 255) / 256, 256>>>(vertices, edges, row_ptr, col_idx, weights, norm);
}
