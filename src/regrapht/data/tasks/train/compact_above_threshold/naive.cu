// A direct port in three steps: one thread per element writes its keep flag, one thread turns the
// flags into output positions serially (an exclusive scan), then one thread per element scatters.
__global__ void mark(int n, float threshold, const float* values, int* pos) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) pos[i] = values[i] > threshold ? 1 : 0;
}

__global__ void serial_exclusive_scan(int n, int* pos, int* count) {
    int running = 0;
    for (int i = 0; i < n; ++i) {
        int flag = pos[i];
        pos[i] = running;
        running += flag;
    }
    count[0] = running;
}

__global__ void scatter(int n, float threshold, const float* values, const int* pos, const int* count,
                        int* kept_index, float* kept_value) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    if (values[i] > threshold) {
        kept_index[pos[i]] = i;
        kept_value[pos[i]] = values[i];
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
    static int* pos = nullptr;
    static int capacity = 0;
    if (n > capacity) {
        if (pos) cudaFree(pos);
        cudaMalloc(&pos, n * sizeof(int));
        capacity = n;
    }
    int blocks = (n + 255) / 256;
    mark<<<blocks, 256>>>(n, threshold, values, pos);
    serial_exclusive_scan<<<1, 1>>>(n, pos, count);
    scatter<<<blocks, 256>>>(n, threshold, values, pos, count, kept_index, kept_value);
}
