// A direct port in three steps: one thread per particle evaluates the selection, one thread turns
// the flags into output slots serially, then one thread per particle scatters (or pads its slot).
__device__ bool selected(const float* particles, long long i, float box_lo, float box_hi, float min_mass) {
    const float* q = particles + 8 * i;
    const bool inside = q[0] >= box_lo && q[0] < box_hi && q[1] >= box_lo && q[1] < box_hi && q[2] >= box_lo &&
                        q[2] < box_hi;
    return inside && q[6] >= min_mass;
}

__global__ void mark(int n, float box_lo, float box_hi, float min_mass, const float* particles, int* slot) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) slot[i] = selected(particles, i, box_lo, box_hi, min_mass) ? 1 : 0;
}

__global__ void serial_exclusive_scan(int n, int* slot, int* count) {
    int running = 0;
    for (int i = 0; i < n; ++i) {
        const int flag = slot[i];
        slot[i] = running;
        running += flag;
    }
    count[0] = running;
}

__global__ void scatter(int n, float box_lo, float box_hi, float min_mass, const float* particles, const int* slot,
                        const int* count, float* out_x, float* out_y, float* out_z, int* out_index) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    if (selected(particles, i, box_lo, box_hi, min_mass)) {
        const int s = slot[i];
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
    static int* slot = nullptr;
    static int capacity = 0;
    if (n > capacity) {
        if (slot) cudaFree(slot);
        cudaMalloc(&slot, n * sizeof(int));
        capacity = n;
    }
    const int blocks = (n + 255) / 256;
    mark<<<blocks, 256>>>(n, box_lo, box_hi, min_mass, particles, slot);
    serial_exclusive_scan<<<1, 1>>>(n, slot, count);
    scatter<<<blocks, 256>>>(n, box_lo, box_hi, min_mass, particles, slot, count, out_x, out_y, out_z, out_index);
}
