// steps: atomic_privatization, grid_stride_loop
// Each block keeps its own 144 counters in shared memory while its threads stride over the input,
// then adds them to the global histogram with one atomic per non-zero bin.
constexpr int kBins = 144;
constexpr int kThreads = 512;

__global__ void benford_private(int n, const float* __restrict__ amounts, unsigned int* __restrict__ counts) {
    __shared__ unsigned int local[kBins];
    for (int b = threadIdx.x; b < kBins; b += blockDim.x) local[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        float v = amounts[i];
        if (!(v > 0.0f)) continue;
        int e = 0;
        while (v >= 10.0f && e < 8) {
            v /= 10.0f;
            ++e;
        }
        while (v < 1.0f && e >= -8) {
            v *= 10.0f;
            --e;
        }
        if (e < -8 || e >= 8) continue;
        atomicAdd(&local[(e + 8) * 9 + (static_cast<int>(v) - 1)], 1u);
    }
    __syncthreads();
    for (int b = threadIdx.x; b < kBins; b += blockDim.x)
        if (local[b]) atomicAdd(&counts[b], local[b]);
}

void benford_histogram(int n, const float* amounts, unsigned int* counts) {
    cudaMemsetAsync(counts, 0, kBins * sizeof(unsigned int), 0);
    if (n <= 0) return;
    static int max_blocks = 0;
    if (max_blocks == 0) {
        int device = 0, sms = 0, per_sm = 0;
        cudaGetDevice(&device);
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, benford_private, kThreads, 0);
        max_blocks = sms * (per_sm > 0 ? per_sm : 1);
    }
    int blocks = (n + kThreads - 1) / kThreads;
    if (blocks > max_blocks) blocks = max_blocks;
    benford_private<<<blocks, kThreads>>>(n, amounts, counts);
}
