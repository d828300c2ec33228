// Stable stream compaction: gather the survivors of a filter, padding the rest of the output.
void compact_above_threshold(int n, float threshold, const float* values, int* kept_index, float* kept_value,
                             int* count) {
    int kept = 0;
    for (int i = 0; i < n; ++i) {
        if (values[i] > threshold) {
            kept_index[kept] = i;
            kept_value[kept] = values[i];
            ++kept;
        }
    }
    for (int j = kept; j < n; ++j) {
        kept_index[j] = -1;
        kept_value[j] = 0.0f;
    }
    count[0] = kept;
}
