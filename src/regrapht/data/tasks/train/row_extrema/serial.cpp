// Row-wise extrema with first-occurrence positions, as used to find peaks in a batch of spectra.
void row_extrema(int rows, int cols, const float* data, float* row_min, float* row_max, int* arg_min,
                 int* arg_max) {
    for (int r = 0; r < rows; ++r) {
        const float* row = data + static_cast<long long>(r) * cols;
        float lo = row[0], hi = row[0];
        int lo_at = 0, hi_at = 0;
        for (int c = 1; c < cols; ++c) {
            const float v = row[c];
            if (v < lo) {
                lo = v;
                lo_at = c;
            }
            if (v > hi) {
                hi = v;
                hi_at = c;
            }
        }
        row_min[r] = lo;
        row_max[r] = hi;
        arg_min[r] = lo_at;
        arg_max[r] = hi_at;
    }
}
