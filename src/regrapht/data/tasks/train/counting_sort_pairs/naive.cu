// A direct port with one thread per key value (bucket): thread k counts the keys equal to k, one
// thread turns the counts into bucket starts, then thread k walks the input in order and writes
// the pairs of its own bucket, which keeps equal keys in input order.
__global__ void count_bucket(int n, int key_range, const int* keys, int* bucket_start) {
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= key_range) return;
    int count = 0;
    for (int i = 0; i < n; ++i)
        if (keys[i] == k) ++count;
    bucket_start[k] = count;
}

__global__ void serial_bucket_starts(int key_range, int* bucket_start) {
    int running = 0;
    for (int k = 0; k < key_range; ++k) {
        const int c = bucket_start[k];
        bucket_start[k] = running;
        running += c;
    }
    bucket_start[key_range] = running;
}

__global__ void fill_bucket(int n, int key_range, const int* keys, const float* payload, const int* bucket_start,
                            int* sorted_keys, float* sorted_payload) {
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= key_range) return;
    int dst = bucket_start[k];
    for (int i = 0; i < n; ++i) {
        if (keys[i] == k) {
            sorted_keys[dst] = k;
            sorted_payload[dst] = payload[i];
            ++dst;
        }
    }
}

void counting_sort_pairs(int n, int key_range, const int* keys, const float* payload, int* sorted_keys,
                         float* sorted_payload, int* bucket_start) {
    if (key_range <= 0) return;
    const int blocks = (key_range + 127) / 128;
    count_bucket<<<blocks, 128>>>(n, key_range, keys, bucket_start);
    serial_bucket_starts<<<1, 1>>>(key_range, bucket_start);
    fill_bucket<<<blocks, 128>>>(n, key_range, keys, payload, bucket_start, sorted_keys, sorted_payload);
}
