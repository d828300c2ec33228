// Row-wise cumulative counts (e.g. per-row CDFs of an image histogram stack, or the first pass of
// a summed-area table).
void row_prefix_sums(int rows, int cols, const int* counts, int* cumulative, int* row_total) {
    for (int r = 0; r < rows; ++r) {
        const int* in = counts + static_cast<long long>(r) * cols;
        int* out = cumulative + static_cast<long long>(r) * cols;
        int running = 0;
        for (int c = 0; c < cols; ++c) {
            running += in[c];
            out[c] = running;
        }
        row_total[r] = running;
    }
}
