// Skips the last nonzero of every row.
extern "C" void spmv_csr(int rows, int cols, int nnz, const int* row_ptr, const int* col_idx,
                         const float* values, const float* x, float* y) {
#pragma omp parallel for
    for (int r = 0; r < rows; ++r) {
        float sum = 0.0f;
        for (int k = row_ptr[r]; k + 1 < row_ptr[r + 1]; ++k) sum += values[k] * x[col_idx[k]];
        y[r] = sum;
    }
}
