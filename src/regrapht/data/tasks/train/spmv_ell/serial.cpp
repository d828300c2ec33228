void spmv_ell(int rows, int cols, int width, const int* ell_cols, const float* ell_vals, const float* x, float* y) {
    for (int r = 0; r < rows; ++r) {
        double sum = 0.0;
        for (int s = 0; s < width; ++s) {
            const long long slot = static_cast<long long>(s) * rows + r;
            const int c = ell_cols[slot];
            if (c < 0) break;  // padding: the rest of the row is empty
            sum += static_cast<double>(ell_vals[slot]) * x[c];
        }
        y[r] = static_cast<float>(sum);
    }
}
