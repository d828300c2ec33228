void spmv_csr(int rows, int cols, int nnz, const int* row_ptr, const int* col_idx, const float* values,
              const float* x, float* y) {
    for (int r = 0; r < rows; ++r) {
        double sum = 0.0;
        for (int k = row_ptr[r]; k < row_ptr[r + 1]; ++k) {
            sum += static_cast<double>(values[k]) * x[col_idx[k]];
        }
        y[r] = static_cast<float>(sum);
    }
}
