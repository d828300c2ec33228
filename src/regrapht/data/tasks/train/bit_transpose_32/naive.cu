// One thread per output word gathers one bit from each of the block's 32 input words.
__global__ void bit_transpose_kernel(int blocks, const unsigned int* in, unsigned int* out) {
    long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= 32LL * blocks) return;
    long long b = i / 32;
    int c = static_cast<int>(i % 32);
    const unsigned int* src = in + 32 * b;
    unsigned int word = 0;
    for (int r = 0; r < 32; ++r) word |= ((src[r] >> c) & 1u) << r;
    out[i] = word;
}

void bit_transpose_32(int blocks, const unsigned int* in, unsigned int* out) {
    if (blocks <= 0) return;
    long long words = 32LL * blocks;
    bit_transpose_kernel<<<static_cast<unsigned int>((words + 255) / 256), 256>>>(blocks, in, out);
}
