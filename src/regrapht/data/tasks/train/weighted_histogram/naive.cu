// A direct port: one thread per value, double-precision atomics into global bins, then a rounding pass.
__global__ void bin_values(int n, int bins, float lo, float hi, const float* values, const float* weights,
                           double* sums, unsigned int* bin_count) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float v = values[i];
    if (!(v >= lo && v < hi)) return;
    const float scale = static_cast<float>(bins) / (hi - lo);
    const int b = static_cast<int>((v - lo) * scale);
    if (b >= bins) return;
    atomicAdd(&sums[b], static_cast<double>(weights[i]));
    atomicAdd(&bin_count[b], 1u);
}

__global__ void round_sums(int bins, const double* sums, float* bin_weight) {
    int b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b < bins) bin_weight[b] = static_cast<float>(sums[b]);
}

void weighted_histogram(int n, int bins, float lo, float hi, const float* values, const float* weights,
                        float* bin_weight, unsigned int* bin_count) {
    if (bins <= 0) return;
    static double* sums = nullptr;
    static int capacity = 0;
    if (bins > capacity) {
        if (sums) cudaFree(sums);
        cudaMalloc(&sums, bins * sizeof(double));
        capacity = bins;
    }
    cudaMemset(sums, 0, bins * sizeof(double));
    cudaMemset(bin_count, 0, bins * sizeof(unsigned int));
    if (n > 0) bin_values<<<(n + 255) / 256, 256>>>(n, bins, lo, hi, values, weights, sums, bin_count);
    round_sums<<<(bins + 255) / 256, 256>>>(bins, sums, bin_weight);
}
