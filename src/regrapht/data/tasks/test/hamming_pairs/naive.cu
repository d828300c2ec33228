// One thread per pair loops over the 16 words.
__global__ void hamming_kernel(int pairs, const unsigned long long* a, const unsigned long long* b, int* distance) {
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= pairs) return;
    const unsigned long long* x = a + static_cast<long long>(p) * 16;
    const unsigned long long* y = b + static_cast<long long>(p) * 16;
    int d = 0;
    for (int w = 0; w < 16; ++w) d += __popcll(x[w] ^ y[w]);
    distance[p] = d;
}

void hamming_pairs(int pairs, const unsigned long long* a, const unsigned long long* b, int* distance) {
    if (pairs <= 0) return;
    hamming_kernel<<<(pairs + 255) / 256, 256>>>(pairs, a, b, distance);
}
