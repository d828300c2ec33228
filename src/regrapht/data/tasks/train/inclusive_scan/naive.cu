// A direct port: block-local Hillis-Steele scans, then a serial pass over block sums on one thread,
// then a uniform add. Correct for any n, and slow in the middle phase.
constexpr int kBlock = 256;

__global__ void block_scan(int n, const int* in, int* out, int* block_sums) {
    __shared__ int buf[kBlock];
    int i = blockIdx.x * kBlock + threadIdx.x;
    buf[threadIdx.x] = i < n ? in[i] : 0;
    __syncthreads();
    for (int offset = 1; offset < kBlock; offset <<= 1) {
        int add = threadIdx.x >= offset ? buf[threadIdx.x - offset] : 0;
        __syncthreads();
        buf[threadIdx.x] += add;
        __syncthreads();
    }
    if (i < n) out[i] = buf[threadIdx.x];
    if (threadIdx.x == kBlock - 1) block_sums[blockIdx.x] = buf[threadIdx.x];
}

__global__ void scan_block_sums(int blocks, int* block_sums) {
    unsigned int running = 0;
    for (int b = 0; b < blocks; ++b) {
        unsigned int v = block_sums[b];
        block_sums[b] = running;
        running += v;
    }
}

__global__ void add_offsets(int n, int* out, const int* block_sums) {
    int i = blockIdx.x * kBlock + threadIdx.x;
    if (i < n) out[i] = static_cast<int>(static_cast<unsigned int>(out[i]) + block_sums[blockIdx.x]);
}

void inclusive_scan(int n, const int* in, int* out) {
    if (n <= 0) return;
    int blocks = (n + kBlock - 1) / kBlock;
    static int* sums = nullptr;
    static int capacity = 0;
    if (blocks > capacity) {
        if (sums) cudaFree(sums);
        cudaMalloc(&sums, blocks * sizeof(int));
        capacity = blocks;
    }
    block_scan<<<blocks, kBlock>>>(n, in, out, sums);
    scan_block_sums<<<1, 1>>>(blocks, sums);
    add_offsets<<<blocks, kBlock>>>(n, out, sums);
}
