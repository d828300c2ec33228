// steps: algorithmic_change, warp_divergence_elimination
// Branch-free select by binary search on popcounts: six halving steps each count the set bits of
// the lower half of the current window and move into the half that holds the wanted rank, so every
// lane runs the same fixed sequence of about 30 integer instructions instead of a clear-lowest-bit
// loop whose trip count (the rank) differs between the lanes of a warp.
constexpr int kThreads = 256;

__global__ void __launch_bounds__(kThreads)
    select_kernel(int n, const unsigned long long* __restrict__ words, const int* __restrict__ ranks,
                  int* __restrict__ positions) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const unsigned long long w = words[i];
    int r = ranks[i];
    const bool present = r < __popcll(w);
    int pos = 0;
#pragma unroll
    for (int half = 32; half >= 1; half >>= 1) {
        const int below = __popcll((w >> pos) & ((1ull << half) - 1ull));
        const bool upper = r >= below;
        r -= upper ? below : 0;
        pos += upper ? half : 0;
    }
    positions[i] = present ? pos : -1;
}

void select_bit_in_word(int n, const unsigned long long* words, const int* ranks, int* positions) {
    if (n > 0) select_kernel<<<(n + kThreads - 1) / kThreads, kThreads>>>(n, words, ranks, positions);
}
