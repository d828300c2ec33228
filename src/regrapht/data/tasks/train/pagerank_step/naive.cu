// One thread per vertex gathers its in-neighbours' contributions.
__global__ void pagerank_pull(int vertices, float damping, const int* in_ptr, const int* in_src,
                              const float* inv_out_degree, const float* rank, float* next_rank) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= vertices) return;
    float sum = 0.0f;
    for (int e = in_ptr[v]; e < in_ptr[v + 1]; ++e) {
        int u = in_src[e];
        sum += rank[u] * inv_out_degree[u];
    }
    next_rank[v] = (1.0f - damping) / vertices + damping * sum;
}

void pagerank_step(int vertices, int edges, float damping, const int* in_ptr, const int* in_src,
                   const float* inv_out_degree, const float* rank, float* next_rank) {
    (void)edges;
    if (vertices <= 0) return;
    pagerank_pull<<<(vertices + 255) / 256, 256>>>(vertices, damping, in_ptr, in_src, inv_out_degree, rank,
                                                     next_rank);
}
