// steps: work_decomposition, shared_memory_tiling
// Threads are mapped to edges, not vertices: power-law hubs no longer serialize a warp, and the edge
// arrays are read and written fully coalesced. A block owns a tile of kTile consecutive edges; the
// rows those edges belong to are a contiguous range [r0, r1] of the CSR, found by two binary searches
// over row_ptr per block. The block stages row_ptr[r0 .. r1 + 1] in shared memory, and each edge finds
// its source row by a binary search there (about 11 levels, a warp's 32 consecutive edges sharing
// the path, so the reads broadcast) and reads the source's degree from the same slice. The earlier
// version searched all of row_ptr in global memory for every edge: 20 dependent loads, the lower
// levels L2 round trips, a latency chain per edge. A tile whose edges span more rows than the slice
// holds (runs of empty rows) searches row_ptr in global memory over [r0, r1] instead. Each thread
// takes kPer edges a block-width apart and issues all their loads before it uses any.
constexpr int kThreads = 256;
constexpr int kPer = 8;
constexpr int kTile = kThreads * kPer;
constexpr int kSlice = 4096;  // row_ptr entries a block can stage

// the last row r in [lo, hi] with row_ptr[r] <= e (rows with no edges share their row_ptr value with
// the next row, so this is the row that holds edge e)
__device__ __forceinline__ int row_of(const int* row_ptr, int lo, int hi, int e) {
    while (lo < hi) {
        const int mid = (lo + hi + 1) >> 1;
        if (row_ptr[mid] <= e) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

__global__ void __launch_bounds__(kThreads) gcn_norm_tiles(int vertices, int edges, const int* __restrict__ row_ptr,
                                                           const int* __restrict__ col_idx,
                                                           const float* __restrict__ weights,
                                                           float* __restrict__ norm) {
    __shared__ int slice[kSlice];
    __shared__ int bounds[2];
    const int e0 = blockIdx.x * kTile;
    const int e_last = min(e0 + kTile, edges) - 1;
    if (threadIdx.x < 2) bounds[threadIdx.x] = row_of(row_ptr, 0, vertices - 1, threadIdx.x == 0 ? e0 : e_last);
    __syncthreads();
    const int r0 = bounds[0], r1 = bounds[1];
    const int count = r1 - r0 + 2;  // row_ptr[r0 .. r1 + 1]
    const bool staged = count <= kSlice;
    if (staged)
        for (int i = threadIdx.x; i < count; i += kThreads) slice[i] = row_ptr[r0 + i];
    __syncthreads();

    int v[kPer];
    float w[kPer];
#pragma unroll
    for (int k = 0; k < kPer; ++k) {
        const int e = e0 + k * kThreads + threadIdx.x;
        v[k] = e < edges ? col_idx[e] : 0;
        w[k] = e < edges ? weights[e] : 0.0f;
    }
    int dv[kPer];
#pragma unroll
    for (int k = 0; k < kPer; ++k) dv[k] = row_ptr[v[k] + 1] - row_ptr[v[k]];
#pragma unroll
    for (int k = 0; k < kPer; ++k) {
        const int e = e0 + k * kThreads + threadIdx.x;
        if (e >= edges) break;
        int du;
        if (staged) {
            const int u = row_of(slice, 0, r1 - r0, e);
            du = slice[u + 1] - slice[u];
        } else {
            const int u = row_of(row_ptr, r0, r1, e);
            du = row_ptr[u + 1] - row_ptr[u];
        }
        norm[e] = w[k] / sqrtf((1.0f + du) * (1.0f + dv[k]));
    }
}

void gcn_edge_norm(int vertices, int edges, const int* row_ptr, const int* col_idx, const float* weights,
                   float* norm) {
    if (vertices <= 0 || edges <= 0) return;
    gcn_norm_tiles<<<(edges + kTile - 1) / kTile, kThreads>>>(vertices, edges, row_ptr, col_idx, weights, norm);
}
