// One thread per vertex: out-degree from the row pointers, and one atomic per out-edge for in-degrees.
__global__ void out_degree_kernel(int vertices, const int* row_ptr, int* out_degree) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v < vertices) out_degree[v] = row_ptr[v + 1] - row_ptr[v];
}

__global__ void in_degree_kernel(int vertices, const int* row_ptr, const int* col_idx, int* in_degree) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= vertices) return;
    for (int e = row_ptr[v]; e < row_ptr[v + 1]; ++e) atomicAdd(&in_degree[col_idx[e]], 1);
}

void degree_counts(int vertices, int edges, const int* row_ptr, const int* col_idx, int* out_degree,
                   int* in_degree) {
    (void)edges;
    if (vertices <= 0) return;
    cudaMemset(in_degree, 0, vertices * sizeof(int));
    int blocks = (vertices + 255) / 256;
    out_degree_kernel<<<blocks, 256>>>(vertices, row_ptr, out_degree);
    in_degree_kernel<<<blocks, 256>>>(vertices, row_ptr, col_idx, in_degree);
}
