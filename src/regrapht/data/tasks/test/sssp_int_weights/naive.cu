// Topology-driven Bellman-Ford: every round launches one thread per vertex, each reached vertex
// relaxes all its out-edges with atomicMin, and the host repeats rounds until one changes nothing.
#include <climits>

__global__ void sssp_init(int vertices, int source, int* dist) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v < vertices) dist[v] = v == source ? 0 : INT_MAX;
}

__global__ void sssp_relax_all(int vertices, const int* row_ptr, const int* col_idx, const int* weights, int* dist,
                               int* changed) {
    int u = blockIdx.x * blockDim.x + threadIdx.x;
    if (u >= vertices) return;
    const int du = dist[u];
    if (du == INT_MAX) return;
    for (int e = row_ptr[u]; e < row_ptr[u + 1]; ++e) {
        const int v = col_idx[e];
        const int nd = du + weights[e];
        if (nd < dist[v]) {
            atomicMin(&dist[v], nd);
            *changed = 1;
        }
    }
}

__global__ void sssp_finish(int vertices, int* dist) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v < vertices && dist[v] == INT_MAX) dist[v] = -1;
}

void sssp_int_weights(int vertices, int edges, int source, const int* row_ptr, const int* col_idx, const int* weights,
                      int* dist) {
    (void)edges;
    if (vertices <= 0) return;
    static int* changed = nullptr;
    if (!changed) cudaMalloc(&changed, sizeof(int));
    const int blocks = (vertices + 255) / 256;
    sssp_init<<<blocks, 256>>>(vertices, source, dist);
    for (;;) {
        int flag = 0;
        cudaMemcpy(changed, &flag, sizeof(int), cudaMemcpyHostToDevice);
        sssp_relax_all<<<blocks, 256>>>(vertices, row_ptr, col_idx, weights, dist, changed);
        cudaMemcpy(&flag, changed, sizeof(int), cudaMemcpyDeviceToHost);
        if (!flag) break;
    }
    sssp_finish<<<blocks, 256>>>(vertices, dist);
}
