// One thread per word, the same bit loops as the reference.
__global__ void popcount_kernel(int n, const unsigned long long* words, unsigned char* ones, signed char* lowest) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned long long w = words[i];
    int count = 0;
    for (unsigned long long v = w; v; v &= v - 1) ++count;
    ones[i] = static_cast<unsigned char>(count);
    int low = -1;
    for (int b = 0; b < 64; ++b) {
        if ((w >> b) & 1ULL) {
            low = b;
            break;
        }
    }
    lowest[i] = static_cast<signed char>(low);
}

void popcount_words(int n, const unsigned long long* words, unsigned char* ones, signed char* lowest) {
    if (n <= 0) return;
    popcount_kernel<<<(n + 255) / 256, 256>>>(n, words, ones, lowest);
}
