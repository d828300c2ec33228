// A direct port in three steps: one thread per element flags it and a block-local (Hillis-Steele)
// scan of the flags gives its slot within the block; one thread turns the per-block counts into
// block offsets serially; then one thread per element scatters (or pads its own slot).
constexpr int kBlock = 256;

__global__ void flag_and_block_scan(int n, float threshold, const float* values, int* slot, int* block_sums) {
    __shared__ int buf[kBlock];
    const int i = blockIdx.x * kBlock + threadIdx.x;
    const int flag = (i < n && values[i] > threshold) ? 1 : 0;
    buf[threadIdx.x] = flag;
    __syncthreads();
    for (int offset = 1; offset < kBlock; offset <<= 1) {
        const int add = threadIdx.x >= offset ? buf[threadIdx.x - offset] : 0;
        __syncthreads();
        buf[threadIdx.x] += add;
        __syncthreads();
    }
    if (i < n) slot[i] = buf[threadIdx.x] - flag;  // exclusive, within the block
    if (threadIdx.x == kBlock - 1) block_sums[blockIdx.x] = buf[threadIdx.x];
}

__global__ void serial_block_offsets(int blocks, int* block_sums, int* count) {
    int running = 0;
    for (int b = 0; b < blocks; ++b) {
        const int c = block_sums[b];
        block_sums[b] = running;
        running += c;
    }
    count[0] = running;
}

__global__ void scatter(int n, float threshold, const float* values, const int* slot, const int* block_sums,
                        const int* count, int* kept_index, float* kept_value) {
    const int i = blockIdx.x * kBlock + threadIdx.x;
    if (i >= n) return;
    if (values[i] > threshold) {
        const int s = block_sums[blockIdx.x] + slot[i];
        kept_index[s] = i;
        kept_value[s] = values[i];
    }
    if (i >= count[0]) {
        kept_index[i] = -1;
        kept_value[i] = 0.0f;
    }
}

void compact_above_threshold(int n, float threshold, const float* values, int* kept_index, float* kept_value,
                             int* count) {
    if (n <= 0) {
        cudaMemset(count, 0, sizeof(int));
        return;
    }
    const int blocks = (n + kBlock - 1) / kBlock;
    static int* slot = nullptr;
    static int* block_sums = nullptr;
    static int capacity = 0;
    if (n > capacity) {
        if (slot) cudaFree(slot);
        if (block_sums) cudaFree(block_sums);
        cudaMalloc(&slot, n * sizeof(int));
        cudaMalloc(&block_sums, blocks * sizeof(int));
        capacity = n;
    }
    flag_and_block_scan<<<blocks, kBlock>>>(n, threshold, values, slot, block_sums);
    serial_block_offsets<<<1, 1>>>(blocks, block_sums, count);
    scatter<<<blocks, kBlock>>>(n, threshold, values, slot, block_sums, count, kept_index, kept_value);
}
