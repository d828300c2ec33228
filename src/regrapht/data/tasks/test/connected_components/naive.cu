// Min-label propagation: every vertex repeatedly takes the smallest label among itself and its
// neighbours, one launch per round, until a round changes nothing.
__global__ void init_labels(int vertices, int* label) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v < vertices) label[v] = v;
}

__global__ void propagate(int vertices, const int* row_ptr, const int* col_idx, int* label, int* changed) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= vertices) return;
    int best = label[v];
    for (int e = row_ptr[v]; e < row_ptr[v + 1]; ++e) best = min(best, label[col_idx[e]]);
    if (best < label[v]) {
        atomicMin(&label[v], best);
        *changed = 1;
    }
}

void connected_components(int vertices, int edges, const int* row_ptr, const int* col_idx, int* label) {
    (void)edges;
    if (vertices <= 0) return;
    static int* changed = nullptr;
    if (!changed) cudaMalloc(&changed, sizeof(int));
    int blocks = (vertices + 255) / 256;
    init_labels<<<blocks, 256>>>(vertices, label);
    int flag = 1;
    while (flag) {
        flag = 0;
        cudaMemcpy(changed, &flag, sizeof(int), cudaMemcpyHostToDevice);
        propagate<<<blocks, 256>>>(vertices, row_ptr, col_idx, label, changed);
        cudaMemcpy(&flag, changed, sizeof(int), cudaMemcpyDeviceToHost);
    }
}
