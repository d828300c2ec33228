// A direct port: a parallel count with atomics, then one thread computes bucket starts and performs
// the stable scatter in input order, exactly as the serial loop does.
__global__ void count_keys(int n, const int* keys, int* count) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&count[keys[i]], 1);
}

__global__ void serial_starts_and_scatter(int n, int key_range, const int* keys, const float* payload, int* count,
                                          int* sorted_keys, float* sorted_payload, int* bucket_start) {
    int running = 0;
    for (int k = 0; k < key_range; ++k) {
        bucket_start[k] = running;
        int c = count[k];
        count[k] = running;  // becomes the next free slot of bucket k
        running += c;
    }
    bucket_start[key_range] = running;
    for (int i = 0; i < n; ++i) {
        int dst = count[keys[i]]++;
        sorted_keys[dst] = keys[i];
        sorted_payload[dst] = payload[i];
    }
}

void counting_sort_pairs(int n, int key_range, const int* keys, const float* payload, int* sorted_keys,
                         float* sorted_payload, int* bucket_start) {
    static int* count = nullptr;
    static int capacity = 0;
    if (key_range > capacity) {
        if (count) cudaFree(count);
        cudaMalloc(&count, key_range * sizeof(int));
        capacity = key_range;
    }
    cudaMemset(count, 0, key_range * sizeof(int));
    if (n > 0) count_keys<<<(n + 255) / 256, 256>>>(n, keys, count);
    serial_starts_and_scatter<<<1, 1>>>(n, key_range, keys, payload, count, sorted_keys, sorted_payload,
                                        bucket_start);
}
