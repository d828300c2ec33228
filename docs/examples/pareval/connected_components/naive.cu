// Label propagation in the first block, over a static workspace (ParEval's kernel has no scratch
// argument; a regrapht-native task would declare one with role = "scratch"). Every vertex starts
// with its own label and takes the smallest label among its neighbours until none changes; the
// components are the vertices that keep their own label.
#define MAX_VERTICES 8192
__device__ int labels[MAX_VERTICES];

__global__ void componentCount(const int* A, size_t N, int* numComponents) {
    if (blockIdx.x != 0 || blockIdx.y != 0 || N > MAX_VERTICES) return;
    const size_t tid = threadIdx.y * blockDim.x + threadIdx.x, threads = blockDim.x * blockDim.y;
    for (size_t v = tid; v < N; v += threads) labels[v] = (int)v;
    __syncthreads();
    int changed = 1;
    while (changed) {
        int mine = 0;
        for (size_t v = tid; v < N; v += threads) {
            int best = labels[v];
            for (size_t w = 0; w < N; ++w)
                if (A[v * N + w] && labels[w] < best) best = labels[w];
            if (best < labels[v]) {
                labels[v] = best;
                mine = 1;
            }
        }
        changed = __syncthreads_or(mine);
    }
    int roots = 0;
    for (size_t v = tid; v < N; v += threads) roots += labels[v] == (int)v;
    atomicAdd(numComponents, roots);
}
