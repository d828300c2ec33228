// steps: work_decomposition, shared_memory_tiling, kernel_fusion
// One block per instance: the DP row lives in shared memory (two ping-pong copies), the block's
// threads update all capacities in parallel, and the instance's items are staged in shared memory
// once. Each pass takes two items at once: the row after both is the best of skipping both or
// taking item 1, item 2 or both, max(cur[c], cur[c-w1]+v1, cur[c-w2]+v2, cur[c-w1-w2]+v1+v2),
// so the row between them is never stored: 4 shared reads and 1 write per cell for two items
// instead of 6 accesses, and half the barriers. An odd item count ends with a one-item pass.
// Rows up to 5000 capacities fit; larger ones use the per-thread fallback.
constexpr int kThreads = 256;
constexpr int kMaxItems = 64;

__global__ void knapsack_block(int items, int capacity, const int* weight, const int* value, int* best) {
    extern __shared__ int rows[];
    __shared__ int w_s[kMaxItems], v_s[kMaxItems];
    int* cur = rows;
    int* nxt = rows + capacity + 1;
    const long long base = static_cast<long long>(blockIdx.x) * items;
    for (int c = threadIdx.x; c <= capacity; c += kThreads) cur[c] = 0;
    for (int k0 = 0; k0 < items; k0 += kMaxItems) {
        const int chunk = min(kMaxItems, items - k0);
        __syncthreads();
        for (int k = threadIdx.x; k < chunk; k += kThreads) {
            w_s[k] = weight[base + k0 + k];
            v_s[k] = value[base + k0 + k];
        }
        __syncthreads();
        for (int k = 0; k < chunk; k += 2) {
            const int w1 = w_s[k], v1 = v_s[k];
            if (k + 1 < chunk) {
                const int w2 = w_s[k + 1], v2 = v_s[k + 1];
                for (int c = threadIdx.x; c <= capacity; c += kThreads) {
                    int best = cur[c];
                    if (c >= w1) best = max(best, cur[c - w1] + v1);
                    if (c >= w2) best = max(best, cur[c - w2] + v2);
                    if (c >= w1 + w2) best = max(best, cur[c - w1 - w2] + v1 + v2);
                    nxt[c] = best;
                }
            } else {  // the chunk's last item, when it has an odd count
                for (int c = threadIdx.x; c <= capacity; c += kThreads) {
                    int keep = cur[c];
                    nxt[c] = c >= w1 ? max(keep, cur[c - w1] + v1) : keep;
                }
            }
            __syncthreads();
            int* t = cur;
            cur = nxt;
            nxt = t;
        }
    }
    __syncthreads();
    if (threadIdx.x == 0) best[blockIdx.x] = cur[capacity];
}

__global__ void knapsack_thread(int instances, int items, int capacity, const int* weight, const int* value,
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
    const size_t shared = 2 * static_cast<size_t>(capacity + 1) * sizeof(int);
    if (shared <= 40000) {
        knapsack_block<<<instances, kThreads, shared>>>(items, capacity, weight, value, best);
        return;
    }
    static int* scratch = nullptr;
    static long long held = 0;
    long long need = static_cast<long long>(instances) * (capacity + 1);
    if (need > held) {
        if (scratch) cudaFree(scratch);
        cudaMalloc(&scratch, need * sizeof(int));
        held = need;
    }
    knapsack_thread<<<(instances + 127) / 128, 128>>>(instances, items, capacity, weight, value, scratch, best);
}
