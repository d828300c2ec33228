// A direct port: one thread per vector, one global atomic per counted vector.
__global__ void polar_kernel(int n, const float* xs, const float* ys, float r_max, unsigned int* counts) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float kPi = 3.14159265358979f;
    const float x = xs[i], y = ys[i];
    const int ring = static_cast<int>(sqrtf(x * x + y * y) * (16.0f / r_max));
    if (ring >= 16) return;
    int sector = static_cast<int>((atan2f(y, x) + kPi) * (256.0f / (2.0f * kPi)));
    if (sector > 255) sector = 255;
    atomicAdd(&counts[ring * 256 + sector], 1u);
}

void polar_histogram(int n, const float* xs, const float* ys, float r_max, unsigned int* counts) {
    cudaMemset(counts, 0, 4096 * sizeof(unsigned int));
    if (n > 0) polar_kernel<<<(n + 255) / 256, 256>>>(n, xs, ys, r_max, counts);
}
