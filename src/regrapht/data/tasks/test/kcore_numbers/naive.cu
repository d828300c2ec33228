// Parallel peeling: for k = 0, 1, 2, ... the host repeats passes of one thread per vertex; a vertex
// still in the graph whose remaining degree is at most k is removed with core number k and lowers
// its remaining neighbours' degrees, until a pass removes nothing; then k grows.
__global__ void kcore_init(int vertices, const int* row_ptr, int* deg, int* core) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= vertices) return;
    deg[v] = row_ptr[v + 1] - row_ptr[v];
    core[v] = -1;
}

__global__ void kcore_pass(int vertices, int k, const int* row_ptr, const int* col_idx, int* deg, int* core,
                           int* removed) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= vertices || core[v] >= 0 || deg[v] > k) return;
    core[v] = k;
    atomicAdd(removed, 1);
    for (int e = row_ptr[v]; e < row_ptr[v + 1]; ++e) {
        const int u = col_idx[e];
        if (core[u] < 0) atomicSub(&deg[u], 1);
    }
}

void kcore_numbers(int vertices, int edges, const int* row_ptr, const int* col_idx, int* core) {
    (void)edges;
    if (vertices <= 0) return;
    static int *deg = nullptr, *removed = nullptr;
    static int capacity = 0;
    if (vertices > capacity) {
        if (deg) cudaFree(deg);
        cudaMalloc(&deg, static_cast<size_t>(vertices) * sizeof(int));
        capacity = vertices;
    }
    if (!removed) cudaMalloc(&removed, sizeof(int));
    const int blocks = (vertices + 255) / 256;
    kcore_init<<<blocks, 256>>>(vertices, row_ptr, deg, core);
    int remaining = vertices;
    for (int k = 0; remaining > 0; ++k) {
        for (;;) {
            int count = 0;
            cudaMemcpy(removed, &count, sizeof(int), cudaMemcpyHostToDevice);
            kcore_pass<<<blocks, 256>>>(vertices, k, row_ptr, col_idx, deg, core, removed);
            cudaMemcpy(&count, removed, sizeof(int), cudaMemcpyDeviceToHost);
            remaining -= count;
            if (count == 0) break;
        }
    }
}
