// A direct port: one thread per query runs its own binary search in global memory.
__global__ void lookup_kernel(int table_size, int queries, const int* table_keys, const float* table_values,
                              const int* query_keys, int* position, float* found_value) {
    int q = blockIdx.x * blockDim.x + threadIdx.x;
    if (q >= queries) return;
    const int key = query_keys[q];
    int lo = 0, hi = table_size;
    while (lo < hi) {
        const int mid = lo + (hi - lo) / 2;
        if (table_keys[mid] < key) lo = mid + 1;
        else hi = mid;
    }
    position[q] = lo;
    found_value[q] = (lo < table_size && table_keys[lo] == key) ? table_values[lo] : -1.0f;
}

void sorted_table_lookup(int table_size, int queries, const int* table_keys, const float* table_values,
                         const int* query_keys, int* position, float* found_value) {
    if (queries > 0)
        lookup_kernel<<<(queries + 255) / 256, 256>>>(table_size, queries, table_keys, table_values, query_keys,
                                                      position, found_value);
}
