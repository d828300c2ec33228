// First threshold crossing per row (alarm onset in sensor traces, first-passage times).
void first_above_per_row(int rows, int cols, const float* values, float threshold, int* first) {
    for (int r = 0; r < rows; ++r) {
        const float* row = values + static_cast<long long>(r) * cols;
        int found = -1;
        for (int c = 0; c < cols; ++c) {
            if (row[c] > threshold) {
                found = c;
                break;
            }
        }
        first[r] = found;
    }
}
