// Batched lookups in a sorted (key -> value) table, e.g. mapping sparse ids to dense attributes.
void sorted_table_lookup(int table_size, int queries, const int* table_keys, const float* table_values,
                         const int* query_keys, int* position, float* found_value) {
    for (int q = 0; q < queries; ++q) {
        const int key = query_keys[q];
        int lo = 0, hi = table_size;  // search [lo, hi)
        while (lo < hi) {
            const int mid = lo + (hi - lo) / 2;
            if (table_keys[mid] < key) lo = mid + 1;
            else hi = mid;
        }
        position[q] = lo;
        found_value[q] = (lo < table_size && table_keys[lo] == key) ? table_values[lo] : -1.0f;
    }
}
