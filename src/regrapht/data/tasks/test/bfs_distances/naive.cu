// Level-synchronous BFS: each level launches one thread per vertex; vertices on the current level
// label their unvisited neighbours, and the host loops until a level adds nothing.
__global__ void init_dist(int vertices, int source, int* dist) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v < vertices) dist[v] = v == source ? 0 : -1;
}

__global__ void bfs_level(int vertices, int level, const int* row_ptr, const int* col_idx, int* dist, int* changed) {
    int u = blockIdx.x * blockDim.x + threadIdx.x;
    if (u >= vertices || dist[u] != level) return;
    for (int e = row_ptr[u]; e < row_ptr[u + 1]; ++e) {
        int v = col_idx[e];
        if (dist[v] == -1) {
            dist[v] = level + 1;
            *changed = 1;
        }
    }
}

void bfs_distances(int vertices, int edges, int source, const int* row_ptr, const int* col_idx, int* dist) {
    (void)edges;
    if (vertices <= 0) return;
    static int* changed = nullptr;
    if (!changed) cudaMalloc(&changed, sizeof(int));
    int blocks = (vertices + 255) / 256;
    init_dist<<<blocks, 256>>>(vertices, source, dist);
    for (int level = 0;; ++level) {
        int flag = 0;
        cudaMemcpy(changed, &flag, sizeof(int), cudaMemcpyHostToDevice);
        bfs_level<<<blocks, 256>>>(vertices, level, row_ptr, col_idx, dist, changed);
        cudaMemcpy(&flag, changed, sizeof(int), cudaMemcpyDeviceToHost);
        if (!flag) break;
    }
}
