__global__ void spmv_row_per_thread(int rows, const int* row_ptr, const int* col_idx, const float* values,
                                    const float* x, float* y) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    float sum = 0.0f;
    for (int k = row_ptr[r]; k < row_ptr[r + 1]; ++k) sum += values[k] * x[col_idx[k]];
    y[r] = sum;
}

void spmv_csr(int rows, int cols, int nnz, const int* row_ptr, const int* col_idx, const float* values,
              const float* x, float* y) {
    if (rows <= 0) return;
    spmv_row_per_thread<<<(rows + 255) / 256, 256>>>(rows, row_ptr, col_idx, values, x, y);
}
