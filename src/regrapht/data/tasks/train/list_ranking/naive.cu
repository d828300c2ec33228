// One thread per node walks its list to the end.
__global__ void walk_kernel(int n, const int* next, int* rank, int* tail) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int steps = 0, v = i;
    while (next[v] >= 0) {
        v = next[v];
        ++steps;
    }
    rank[i] = steps;
    tail[i] = v;
}

void list_ranking(int n, const int* next, int* rank, int* tail) {
    if (n <= 0) return;
    walk_kernel<<<(n + 255) / 256, 256>>>(n, next, rank, tail);
}
