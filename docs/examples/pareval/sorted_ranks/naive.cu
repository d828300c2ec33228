// One thread per element counts the elements that sort before it.
__global__ void ranks(const float* x, size_t* ranks, size_t N) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= N) return;
    float v = x[i];
    size_t r = 0;
    for (size_t j = 0; j < N; ++j) {
        float w = x[j];
        r += (w < v) || (w == v && j < i);
    }
    ranks[i] = r;
}
