// A direct port of the byte-wise LSD radix sort. Each pass runs in one block of 256 threads, one
// per digit value: thread d counts the keys with digit d, thread 0 turns the counts into bucket
// starts, and thread d then walks the input in order writing its own bucket (stable by
// construction). Passes ping-pong between a scratch buffer and the output.
__global__ void radix_pass_per_digit(int n, int shift, const unsigned int* keys_in, const int* vals_in,
                                     unsigned int* keys_out, int* vals_out) {
    __shared__ int start[256];
    const unsigned int d = threadIdx.x;
    int count = 0;
    for (int i = 0; i < n; ++i)
        if (((keys_in[i] >> shift) & 0xFFu) == d) ++count;
    start[d] = count;
    __syncthreads();
    if (d == 0) {
        int running = 0;
        for (int b = 0; b < 256; ++b) {
            const int c = start[b];
            start[b] = running;
            running += c;
        }
    }
    __syncthreads();
    int dst = start[d];
    for (int i = 0; i < n; ++i) {
        const unsigned int key = keys_in[i];
        if (((key >> shift) & 0xFFu) == d) {
            keys_out[dst] = key;
            vals_out[dst] = vals_in[i];
            ++dst;
        }
    }
}

void radix_sort_pairs(int n, const unsigned int* keys, const int* values, unsigned int* sorted_keys,
                      int* sorted_values) {
    if (n <= 0) return;
    static unsigned int* tmp_keys = nullptr;
    static int* tmp_vals = nullptr;
    static int capacity = 0;
    if (n > capacity) {
        if (tmp_keys) cudaFree(tmp_keys);
        if (tmp_vals) cudaFree(tmp_vals);
        cudaMalloc(&tmp_keys, n * sizeof(unsigned int));
        cudaMalloc(&tmp_vals, n * sizeof(int));
        capacity = n;
    }
    // passes: input -> tmp -> output -> tmp -> output
    radix_pass_per_digit<<<1, 256>>>(n, 0, keys, values, tmp_keys, tmp_vals);
    radix_pass_per_digit<<<1, 256>>>(n, 8, tmp_keys, tmp_vals, sorted_keys, sorted_values);
    radix_pass_per_digit<<<1, 256>>>(n, 16, sorted_keys, sorted_values, tmp_keys, tmp_vals);
    radix_pass_per_digit<<<1, 256>>>(n, 24, tmp_keys, tmp_vals, sorted_keys, sorted_values);
}
