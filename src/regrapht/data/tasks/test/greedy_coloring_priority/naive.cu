// Jones-Plassmann rounds: each round one thread per vertex; an uncolored vertex whose
// higher-priority neighbours are all colored takes the smallest color none of them has, tried
// color by color. The host repeats rounds until a round leaves no vertex uncolored.
__global__ void jp_init(int vertices, int* color) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v < vertices) color[v] = -1;
}

__global__ void jp_round(int vertices, const int* row_ptr, const int* col_idx, const int* priority, int* color,
                         int* uncolored) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= vertices || color[v] >= 0) return;
    const int begin = row_ptr[v], end = row_ptr[v + 1], pv = priority[v];
    for (int e = begin; e < end; ++e) {
        const int u = col_idx[e];
        if (priority[u] > pv && color[u] < 0) {
            *uncolored = 1;  // wait for the higher-priority neighbour
            return;
        }
    }
    for (int c = 0;; ++c) {
        bool used = false;
        for (int e = begin; e < end && !used; ++e) {
            const int u = col_idx[e];
            used = priority[u] > pv && color[u] == c;
        }
        if (!used) {
            color[v] = c;
            return;
        }
    }
}

void greedy_coloring_priority(int vertices, int edges, const int* row_ptr, const int* col_idx, const int* priority,
                              int* color) {
    (void)edges;
    if (vertices <= 0) return;
    static int* uncolored = nullptr;
    if (!uncolored) cudaMalloc(&uncolored, sizeof(int));
    const int blocks = (vertices + 255) / 256;
    jp_init<<<blocks, 256>>>(vertices, color);
    for (int flag = 1; flag;) {
        flag = 0;
        cudaMemcpy(uncolored, &flag, sizeof(int), cudaMemcpyHostToDevice);
        jp_round<<<blocks, 256>>>(vertices, row_ptr, col_idx, priority, color, uncolored);
        cudaMemcpy(&flag, uncolored, sizeof(int), cudaMemcpyDeviceToHost);
    }
}
