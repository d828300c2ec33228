// A direct port: one thread per segment copies its pairs to the output and insertion-sorts them in
// place there (insertion sort is stable and fast on the short segments).
__global__ void sort_segments(int segments, const int* offsets, const unsigned int* keys, const int* values,
                              unsigned int* sorted_keys, int* sorted_values) {
    int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= segments) return;
    const int begin = offsets[s], end = offsets[s + 1];
    for (int i = begin; i < end; ++i) {
        const unsigned int key = keys[i];
        const int value = values[i];
        int j = i;
        while (j > begin && sorted_keys[j - 1] > key) {
            sorted_keys[j] = sorted_keys[j - 1];
            sorted_values[j] = sorted_values[j - 1];
            --j;
        }
        sorted_keys[j] = key;
        sorted_values[j] = value;
    }
}

void segmented_sort_pairs(int n, int segments, const int* offsets, const unsigned int* keys, const int* values,
                          unsigned int* sorted_keys, int* sorted_values) {
    (void)n;
    if (segments > 0) sort_segments<<<(segments + 127) / 128, 128>>>(segments, offsets, keys, values, sorted_keys,
                                                                   sorted_values);
}
