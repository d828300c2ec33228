// One thread per vertex walks its edge list.
__global__ void gcn_norm_kernel(int vertices, const int* row_ptr, const int* col_idx, const float* weights,
                                float* norm) {
    int u = blockIdx.x * blockDim.x + threadIdx.x;
    if (u >= vertices) return;
    const float du = 1.0f + (row_ptr[u + 1] - row_ptr[u]);
    for (int e = row_ptr[u]; e < row_ptr[u + 1]; ++e) {
        const int v = col_idx[e];
        const float dv = 1.0f + (row_ptr[v + 1] - row_ptr[v]);
        norm[e] = weights[e] / sqrtf(du * dv);
    }
}

void gcn_edge_norm(int vertices, int edges, const int* row_ptr, const int* col_idx, const float* weights,
                   float* norm) {
    (void)edges;
    if (vertices <= 0) return;
    gcn_norm_kernel<<<(vertices + 255) / 256, 256>>>(vertices, row_ptr, col_idx, weights, norm);
}
