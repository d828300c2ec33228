// Edge-parallel Bellman-Ford, the textbook port: the CSR rows are first expanded into a source
// vertex per edge, then every sweep launches one thread per edge that relaxes (u, v, w) with
// atomicMin, and the host repeats sweeps until one lowers no distance.
#include <climits>

__global__ void bf_expand_sources(int vertices, const int* row_ptr, int* edge_source, int* dist, int source) {
    int u = blockIdx.x * blockDim.x + threadIdx.x;
    if (u >= vertices) return;
    for (int e = row_ptr[u]; e < row_ptr[u + 1]; ++e) edge_source[e] = u;
    dist[u] = u == source ? 0 : INT_MAX;
}

__global__ void bf_sweep(int edges, const int* edge_source, const int* col_idx, const int* weights, int* dist,
                         int* lowered) {
    int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= edges) return;
    const int du = dist[edge_source[e]];
    if (du == INT_MAX) return;
    const int target = col_idx[e];
    const int candidate = du + weights[e];
    if (candidate < dist[target]) {
        atomicMin(&dist[target], candidate);
        *lowered = 1;
    }
}

__global__ void bf_unreached(int vertices, int* dist) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v < vertices && dist[v] == INT_MAX) dist[v] = -1;
}

void sssp_int_weights(int vertices, int edges, int source, const int* row_ptr, const int* col_idx, const int* weights,
                      int* dist) {
    if (vertices <= 0) return;
    static int *edge_source = nullptr, *lowered = nullptr;
    static int capacity = 0;
    if (edges > capacity) {
        if (edge_source) cudaFree(edge_source);
        cudaMalloc(&edge_source, static_cast<size_t>(edges) * sizeof(int));
        capacity = edges;
    }
    if (!lowered) cudaMalloc(&lowered, sizeof(int));
    bf_expand_sources<<<(vertices + 255) / 256, 256>>>(vertices, row_ptr, edge_source, dist, source);
    if (edges > 0) {
        for (int flag = 1; flag;) {
            flag = 0;
            cudaMemcpy(lowered, &flag, sizeof(int), cudaMemcpyHostToDevice);
            bf_sweep<<<(edges + 255) / 256, 256>>>(edges, edge_source, col_idx, weights, dist, lowered);
            cudaMemcpy(&flag, lowered, sizeof(int), cudaMemcpyDeviceToHost);
        }
    }
    bf_unreached<<<(vertices + 255) / 256, 256>>>(vertices, dist);
}
