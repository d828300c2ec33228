// One thread per vertex merges its list with each neighbour's list.
__global__ void jaccard_kernel(int vertices, const int* row_ptr, const int* col_idx, int* common, float* jaccard) {
    int u = blockIdx.x * blockDim.x + threadIdx.x;
    if (u >= vertices) return;
    const int du = row_ptr[u + 1] - row_ptr[u];
    for (int e = row_ptr[u]; e < row_ptr[u + 1]; ++e) {
        const int v = col_idx[e];
        const int dv = row_ptr[v + 1] - row_ptr[v];
        int a = row_ptr[u], b = row_ptr[v], shared = 0;
        while (a < row_ptr[u + 1] && b < row_ptr[v + 1]) {
            if (col_idx[a] < col_idx[b]) ++a;
            else if (col_idx[a] > col_idx[b]) ++b;
            else {
                ++shared;
                ++a;
                ++b;
            }
        }
        common[e] = shared;
        jaccard[e] = static_cast<float>(shared) / static_cast<float>(du + dv - shared);
    }
}

void jaccard_edges(int vertices, int edges, const int* row_ptr, const int* col_idx, int* common, float* jaccard) {
    (void)edges;
    if (vertices <= 0) return;
    jaccard_kernel<<<(vertices + 127) / 128, 128>>>(vertices, row_ptr, col_idx, common, jaccard);
}
