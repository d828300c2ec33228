// A direct port of repeated selection: k rounds, each a parallel max over all elements of a 64-bit
// key (order-preserving score bits, then the complemented position so lower positions win) among
// the keys below the previous winner; one thread records the winner between rounds.
__device__ __forceinline__ unsigned long long rank_key(float v, int i) {
    const unsigned int bits = __float_as_uint(v);
    const unsigned int ordered = (bits & 0x80000000u) ? ~bits : (bits | 0x80000000u);
    return (static_cast<unsigned long long>(ordered) << 32) | (0xFFFFFFFFu - static_cast<unsigned int>(i));
}

__global__ void best_below(int n, const float* scores, const unsigned long long* bound, unsigned long long* best) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const unsigned long long key = rank_key(scores[i], i);
    if (key < *bound && key > *(volatile unsigned long long*)best) atomicMax(best, key);
}

__global__ void record(int j, const float* scores, unsigned long long* bound, unsigned long long* best,
                       float* top_values, int* top_index) {
    const int i = static_cast<int>(0xFFFFFFFFu - static_cast<unsigned int>(*best & 0xFFFFFFFFull));
    top_values[j] = scores[i];
    top_index[j] = i;
    *bound = *best;
    *best = 0;
}

void topk_large(int n, int k, const float* scores, float* top_values, int* top_index) {
    if (n <= 0 || k <= 0) return;
    static unsigned long long* state = nullptr;  // [0] = bound, [1] = best
    if (!state) cudaMalloc(&state, 2 * sizeof(unsigned long long));
    const unsigned long long init[2] = {~0ull, 0ull};
    cudaMemcpy(state, init, sizeof(init), cudaMemcpyHostToDevice);
    for (int j = 0; j < k; ++j) {
        best_below<<<(n + 255) / 256, 256>>>(n, scores, state, state + 1);
        record<<<1, 1>>>(j, scores, state, state + 1, top_values, top_index);
    }
}
