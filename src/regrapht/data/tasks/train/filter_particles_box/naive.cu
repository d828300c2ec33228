// A direct port in three steps: one thread per particle evaluates the selection and finds its slot
// within its block, one thread turns block counts into block offsets serially, then one thread per
// particle scatters (or pads its own slot).
__device__ bool selected(const float* particles, long long i, float box_lo, float box_hi, float min_mass) {
    const float* q = particles + 8 * i;
    const bool inside = q[0] >= box_lo && q[0] < box_hi && q[1] >= box_lo && q[1] < box_hi && q[2] >= box_lo &&
                        q[2] < box_hi;
    return inside && q[6] >= min_mass;
}

constexpr int kBlock = 256;

// One thread per particle flags it; a block-local (Hillis-Steele) scan gives its slot in the block.
__global__ void flag_and_block_scan(int n, float box_lo, float box_hi, float min_mass, const float* particles,
                                    int* slot, int* block_sums) {
    __shared__ int buf[kBlock];
    const int i = blockIdx.x * kBlock + threadIdx.x;
    const int flag = (i < n && selected(particles, i, box_lo, box_hi, min_mass)) ? 1 : 0;
    buf[threadIdx.x] = flag;
    __syncthreads();
    for (int offset = 1; offset < kBlock; offset <<= 1) {
        const int add = threadIdx.x >= offset ? buf[threadIdx.x - offset] : 0;
        __syncthreads();
        buf[threadIdx.x] += add;
        __syncthreads();
    }
    if (i < n) slot[i] = buf[threadIdx.x] - flag;
    if (threadIdx.x == kBlock - 1) block_sums[blockIdx.x] = buf[threadIdx.x];
}

// One thread turns the per-block counts into block offsets and the total.
__global__ void serial_block_offsets(int blocks, int* block_sums, int* count) {
    int running = 0;
    for (int b = 0; b < blocks; ++b) {
        const int c = block_sums[b];
        block_sums[b] = running;
        running += c;
    }
    count[0] = running;
}

__global__ void scatter(int n, float box_lo, float box_hi, float min_mass, const float* particles, const int* slot,
                        const int* block_sums, const int* count, float* out_x, float* out_y, float* out_z,
                        int* out_index) {
    const int i = blockIdx.x * kBlock + threadIdx.x;
    if (i >= n) return;
    if (selected(particles, i, box_lo, box_hi, min_mass)) {
        const int s = block_sums[blockIdx.x] + slot[i];
        out_x[s] = particles[8LL * i];
        out_y[s] = particles[8LL * i + 1];
        out_z[s] = particles[8LL * i + 2];
        out_index[s] = i;
    }
    if (i >= count[0]) {
        out_x[i] = out_y[i] = out_z[i] = 0.0f;
        out_index[i] = -1;
    }
}

void filter_particles_box(int n, float box_lo, float box_hi, float min_mass, const float* particles, float* out_x,
                          float* out_y, float* out_z, int* out_index, int* count) {
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
    flag_and_block_scan<<<blocks, kBlock>>>(n, box_lo, box_hi, min_mass, particles, slot, block_sums);
    serial_block_offsets<<<1, 1>>>(blocks, block_sums, count);
    scatter<<<blocks, kBlock>>>(n, box_lo, box_hi, min_mass, particles, slot, block_sums, count, out_x, out_y, out_z,
                                out_index);
}
