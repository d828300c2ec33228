// Per-row top-k (e.g. the k best-scoring items per user), kept in a small sorted buffer.
void topk_per_row(int rows, int cols, int k, const float* scores, float* top_values, int* top_columns) {
    for (int r = 0; r < rows; ++r) {
        const float* row = scores + static_cast<long long>(r) * cols;
        float* vals = top_values + static_cast<long long>(r) * k;
        int* idx = top_columns + static_cast<long long>(r) * k;
        int held = 0;
        for (int c = 0; c < cols; ++c) {
            const float v = row[c];
            if (held == k && !(v > vals[k - 1])) continue;  // an equal score at a later column loses
            int j = held < k ? held++ : k - 1;
            while (j > 0 && vals[j - 1] < v) {
                vals[j] = vals[j - 1];
                idx[j] = idx[j - 1];
                --j;
            }
            vals[j] = v;
            idx[j] = c;
        }
    }
}
