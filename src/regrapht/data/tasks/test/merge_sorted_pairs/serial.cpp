// Stable two-way merge of sorted runs (the combine step of a merge sort or of an LSM-tree compaction).
void merge_sorted_pairs(int na, int nb, const int* a_keys, const float* a_vals, const int* b_keys, const float* b_vals,
                        int* out_keys, float* out_vals) {
    int i = 0, j = 0, o = 0;
    while (i < na || j < nb) {
        if (j >= nb || (i < na && a_keys[i] <= b_keys[j])) {
            out_keys[o] = a_keys[i];
            out_vals[o] = a_vals[i];
            ++i;
        } else {
            out_keys[o] = b_keys[j];
            out_vals[o] = b_vals[j];
            ++j;
        }
        ++o;
    }
}
