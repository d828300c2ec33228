// steps: parallelize, thread_coarsening, shared_memory_tiling, atomic_privatization
// Each block checks a tile of 4096 starting positions (16 per thread): the tile's text plus an
// (m - 1)-letter halo and the motif are staged in shared memory with coalesced loads, matches are
// tallied in shared per-output-block counters, and the block adds each nonzero counter to global
// memory once (tiles that span more than 64 output blocks spill the rest to global atomics).
constexpr int kThreads = 256;
constexpr int kPer = 16;
constexpr int kTile = kThreads * kPer;
constexpr int kMaxM = 64;
constexpr int kSlots = 64;

__global__ void count_tile(int n, int m, int block, const unsigned char* text, const unsigned char* pattern,
                           int* counts) {
    __shared__ unsigned char s_text[kTile + kMaxM];
    __shared__ unsigned char s_pat[kMaxM];
    __shared__ int s_count[kSlots];
    const int tid = threadIdx.x;
    const long long start = static_cast<long long>(blockIdx.x) * kTile;
    const long long limit = static_cast<long long>(n) - m + 1;  // valid starts are < limit
    for (int k = tid; k < kTile + m - 1; k += kThreads) {
        long long g = start + k;
        s_text[k] = g < n ? text[g] : 0;
    }
    for (int k = tid; k < m; k += kThreads) s_pat[k] = pattern[k];
    for (int k = tid; k < kSlots; k += kThreads) s_count[k] = 0;
    __syncthreads();
    const long long b0 = start / block;
    for (int r = 0; r < kPer; ++r) {
        const int local = r * kThreads + tid;
        const long long i = start + local;
        if (i >= limit) break;
        int k = 0;
        while (k < m && s_text[local + k] == s_pat[k]) ++k;
        if (k == m) {
            const long long b = i / block;
            const long long slot = b - b0;
            if (slot < kSlots) atomicAdd(&s_count[slot], 1);
            else atomicAdd(&counts[b], 1);
        }
    }
    __syncthreads();
    for (int k = tid; k < kSlots; k += kThreads)
        if (s_count[k]) atomicAdd(&counts[b0 + k], s_count[k]);
}

void pattern_count_blocks(int n, int m, int block, const unsigned char* text, const unsigned char* pattern,
                          int* counts) {
    const int blocks = (n + block - 1) / block;
    cudaMemset(counts, 0, blocks * sizeof(int));
    const long long starts = static_cast<long long>(n) - m + 1;
    if (starts <= 0) return;
    const long long tiles = (starts + kTile - 1) / kTile;
    count_tile<<<static_cast<unsigned int>(tiles), kThreads>>>(n, m, block, text, pattern, counts);
}
