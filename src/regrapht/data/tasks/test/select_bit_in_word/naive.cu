// A direct port: one thread per word clears its lower set bits one at a time, as the reference does.
__global__ void select_kernel(int n, const unsigned long long* words, const int* ranks, int* positions) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned long long rest = words[i];
    for (int dropped = 0; dropped < ranks[i] && rest != 0; ++dropped) rest &= rest - 1;
    positions[i] = rest != 0 ? __ffsll(static_cast<long long>(rest)) - 1 : -1;
}

void select_bit_in_word(int n, const unsigned long long* words, const int* ranks, int* positions) {
    if (n > 0) select_kernel<<<(n + 255) / 256, 256>>>(n, words, ranks, positions);
}
