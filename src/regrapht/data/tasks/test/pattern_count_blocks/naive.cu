// One thread per starting position compares the motif and bumps its block's counter.
__global__ void match_kernel(int n, int m, int block, const unsigned char* text, const unsigned char* pattern,
                             int* counts) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i + m > n) return;
    int k = 0;
    while (k < m && text[i + k] == pattern[k]) ++k;
    if (k == m) atomicAdd(&counts[i / block], 1);
}

void pattern_count_blocks(int n, int m, int block, const unsigned char* text, const unsigned char* pattern,
                          int* counts) {
    const int blocks = (n + block - 1) / block;
    cudaMemset(counts, 0, blocks * sizeof(int));
    if (n - m + 1 <= 0) return;
    match_kernel<<<(n - m + 1 + 255) / 256, 256>>>(n, m, block, text, pattern, counts);
}
