// A direct port: one thread per amount, one global atomic per counted amount.
__global__ void benford_kernel(int n, const float* amounts, unsigned int* counts) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = amounts[i];
    if (!(v > 0.0f)) return;
    int e = 0;
    while (v >= 10.0f && e < 8) {
        v /= 10.0f;
        ++e;
    }
    while (v < 1.0f && e >= -8) {
        v *= 10.0f;
        --e;
    }
    if (e < -8 || e >= 8) return;
    const int d = static_cast<int>(v);
    atomicAdd(&counts[(e + 8) * 9 + (d - 1)], 1u);
}

void benford_histogram(int n, const float* amounts, unsigned int* counts) {
    cudaMemset(counts, 0, 144 * sizeof(unsigned int));
    if (n > 0) benford_kernel<<<(n + 255) / 256, 256>>>(n, amounts, counts);
}
