// One thread per vertex; a frontier vertex claims each unvisited neighbour with a compare-and-swap
// so that every newly visited vertex is counted exactly once.
__global__ void expand_kernel(int vertices, int frontier_level, const int* row_ptr, const int* col_idx,
                              int* level, int* discovered) {
    int u = blockIdx.x * blockDim.x + threadIdx.x;
    if (u >= vertices || level[u] != frontier_level) return;
    for (int e = row_ptr[u]; e < row_ptr[u + 1]; ++e) {
        int v = col_idx[e];
        if (atomicCAS(&level[v], -1, frontier_level + 1) == -1) atomicAdd(discovered, 1);
    }
}

void bfs_frontier_step(int vertices, int edges, int frontier_level, const int* row_ptr, const int* col_idx,
                       int* level, int* discovered) {
    (void)edges;
    cudaMemset(discovered, 0, sizeof(int));
    if (vertices <= 0) return;
    expand_kernel<<<(vertices + 255) / 256, 256>>>(vertices, frontier_level, row_ptr, col_idx, level,
                                                     discovered);
}
