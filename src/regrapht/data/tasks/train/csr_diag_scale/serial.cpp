void csr_diag_scale(int rows, int cols, int nnz, const int* row_ptr, const int* col_idx, const float* values,
                    const float* row_scale, const float* col_scale, float* scaled) {
    for (int r = 0; r < rows; ++r) {
        const float dr = row_scale[r];
        for (int k = row_ptr[r]; k < row_ptr[r + 1]; ++k) scaled[k] = (dr * values[k]) * col_scale[col_idx[k]];
    }
}
