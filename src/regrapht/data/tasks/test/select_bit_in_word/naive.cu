// A direct port: one thread per word scans its bits in order.
__global__ void select_kernel(int n, const unsigned long long* words, const int* ranks, int* positions) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const unsigned long long w = words[i];
    int remaining = ranks[i], found = -1;
    for (int b = 0; b < 64; ++b) {
        if ((w >> b) & 1ull) {
            if (remaining == 0) {
                found = b;
                break;
            }
            --remaining;
        }
    }
    positions[i] = found;
}

void select_bit_in_word(int n, const unsigned long long* words, const int* ranks, int* positions) {
    if (n > 0) select_kernel<<<(n + 255) / 256, 256>>>(n, words, ranks, positions);
}
