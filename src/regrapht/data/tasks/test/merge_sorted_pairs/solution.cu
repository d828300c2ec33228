// steps: parallelize, algorithmic_change, work_decomposition, shared_memory_tiling, thread_coarsening, memory_coalescing, loop_unrolling, read_only_cache
// Merge path. (1) A partition kernel binary-searches the merge path at every 2048-output tile
// boundary, so each block knows exactly which slices of a and b it merges. (2) Each block loads
// its two slices into shared memory with coalesced reads, every thread finds its own 8-output
// split of the shared slices with the same search and merges those 8 pairs sequentially in
// registers, and the merged tile is staged back through shared memory for coalesced stores.
// Ties take a first, which makes both the partition and the per-thread merge stable.
constexpr int kThreads = 256;
constexpr int kItems = 8;
constexpr int kTile = kThreads * kItems;

// Number of a-elements among the first `diag` outputs of the stable merge.
__device__ __forceinline__ int merge_path(const int* a, int na, const int* b, int nb, int diag) {
    int lo = max(0, diag - nb), hi = min(diag, na);
    while (lo < hi) {
        const int mid = (lo + hi) >> 1;
        if (a[mid] <= b[diag - 1 - mid]) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

__global__ void partition_tiles(int na, int nb, int tiles, const int* __restrict__ a_keys,
                                const int* __restrict__ b_keys, int* __restrict__ split) {
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t > tiles) return;
    const long long diag = min(static_cast<long long>(t) * kTile, static_cast<long long>(na) + nb);
    split[t] = merge_path(a_keys, na, b_keys, nb, static_cast<int>(diag));
}

__global__ void __launch_bounds__(kThreads)
    merge_tiles(int na, int nb, const int* __restrict__ a_keys, const float* __restrict__ a_vals,
                const int* __restrict__ b_keys, const float* __restrict__ b_vals, const int* __restrict__ split,
                int* __restrict__ out_keys, float* __restrict__ out_vals) {
    __shared__ int s_keys[kTile];
    __shared__ float s_vals[kTile];
    const int diag0 = blockIdx.x * kTile;
    const int diag1 = min(diag0 + kTile, na + nb);
    const int a0 = split[blockIdx.x], a1 = split[blockIdx.x + 1];
    const int b0 = diag0 - a0, b1 = diag1 - a1;
    const int la = a1 - a0, lb = b1 - b0, total = la + lb;
    for (int t = threadIdx.x; t < total; t += kThreads) {
        if (t < la) {
            s_keys[t] = a_keys[a0 + t];
            s_vals[t] = a_vals[a0 + t];
        } else {
            s_keys[t] = b_keys[b0 + t - la];
            s_vals[t] = b_vals[b0 + t - la];
        }
    }
    __syncthreads();

    const int start = threadIdx.x * kItems;
    int keys[kItems];
    float vals[kItems];
    if (start < total) {
        int ai = merge_path(s_keys, la, s_keys + la, lb, start);
        int bi = start - ai;
#pragma unroll
        for (int j = 0; j < kItems; ++j) {
            if (start + j < total) {
                const bool take_a = ai < la && (bi >= lb || s_keys[ai] <= s_keys[la + bi]);
                const int src = take_a ? ai : la + bi;
                keys[j] = s_keys[src];
                vals[j] = s_vals[src];
                if (take_a) ++ai;
                else ++bi;
            }
        }
    }
    __syncthreads();  // everyone has read the slices; reuse the buffers for the merged tile
    if (start < total) {
#pragma unroll
        for (int j = 0; j < kItems; ++j) {
            if (start + j < total) {
                s_keys[start + j] = keys[j];
                s_vals[start + j] = vals[j];
            }
        }
    }
    __syncthreads();
    for (int t = threadIdx.x; t < total; t += kThreads) {
        out_keys[diag0 + t] = s_keys[t];
        out_vals[diag0 + t] = s_vals[t];
    }
}

void merge_sorted_pairs(int na, int nb, const int* a_keys, const float* a_vals, const int* b_keys, const float* b_vals,
                        int* out_keys, float* out_vals) {
    const int total = na + nb;
    if (total <= 0) return;
    const int tiles = (total + kTile - 1) / kTile;
    static int* split = nullptr;
    static int capacity = 0;
    if (tiles + 1 > capacity) {
        if (split) cudaFree(split);
        cudaMalloc(&split, static_cast<size_t>(tiles + 1) * sizeof(int));
        capacity = tiles + 1;
    }
    partition_tiles<<<(tiles + 1 + 255) / 256, 256>>>(na, nb, tiles, a_keys, b_keys, split);
    merge_tiles<<<tiles, kThreads>>>(na, nb, a_keys, a_vals, b_keys, b_vals, split, out_keys, out_vals);
}
