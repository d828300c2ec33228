void row_sums(int rows, int cols, const float* a, float* out) {
    for (int r = 0; r < rows; ++r) {
        float s = 0.0f;
        for (int c = 0; c < cols; ++c) {
            s += a[r * cols + c];
        }
        out[r] = s;
    }
}
