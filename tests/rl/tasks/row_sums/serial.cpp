void row_sums(int rows, int cols, const float* a, float* out) {
    for (int r = 0; r < rows; ++r) {
        double s = 0.0;
        for (int c = 0; c < cols; ++c) s += a[(long)r * cols + c];
        out[r] = (float)s;
    }
}
