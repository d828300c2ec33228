// One thread per instance runs the reference's in-place dynamic program on its own slice of a global
// scratch table.
__global__ void knapsack_kernel(int instances, int items, int capacity, const int* weight, const int* value,
                                int* scratch, int* best) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= instances) return;
    int* dp = scratch + static_cast<long long>(i) * (capacity + 1);
    for (int c = 0; c <= capacity; ++c) dp[c] = 0;
    for (int k = 0; k < items; ++k) {
        const int w = weight[static_cast<long long>(i) * items + k];
        const int v = value[static_cast<long long>(i) * items + k];
        for (int c = capacity; c >= w; --c) dp[c] = max(dp[c], dp[c - w] + v);
    }
    best[i] = dp[capacity];
}

void knapsack_batch(int instances, int items, int capacity, const int* weight, const int* value, int* best) {
    if (instances <= 0) return;
    static int* scratch = nullptr;
    static long long held = 0;
    long long need = static_cast<long long>(instances) * (capacity + 1);
    if (need > held) {
        if (scratch) cudaFree(scratch);
        cudaMalloc(&scratch, need * sizeof(int));
        held = need;
    }
    knapsack_kernel<<<(instances + 127) / 128, 128>>>(instances, items, capacity, weight, value, scratch, best);
}
