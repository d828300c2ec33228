__global__ void csr_diag_scale_kernel(int rows, const int* row_ptr, const int* col_idx, const float* values,
                                      const float* row_scale, const float* col_scale, float* scaled) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    float dr = row_scale[r];
    for (int k = row_ptr[r]; k < row_ptr[r + 1]; ++k) scaled[k] = (dr * values[k]) * col_scale[col_idx[k]];
}

void csr_diag_scale(int rows, int cols, int nnz, const int* row_ptr, const int* col_idx, const float* values,
                    const float* row_scale, const float* col_scale, float* scaled) {
    if (rows <= 0) return;
    csr_diag_scale_kernel<<<(rows + 255) / 256, 256>>>(rows, row_ptr, col_idx, values, row_scale, col_scale, scaled);
}
