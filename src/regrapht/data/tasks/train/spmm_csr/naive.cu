__global__ void spmm_csr_kernel(int rows, int nvec, const int* row_ptr, const int* col_idx, const float* values,
                                const float* X, float* Y) {
    long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= (long long)rows * nvec) return;
    int r = (int)(idx / nvec);
    int v = (int)(idx % nvec);
    float sum = 0.0f;
    for (int k = row_ptr[r]; k < row_ptr[r + 1]; ++k) sum += values[k] * X[(long long)col_idx[k] * nvec + v];
    Y[idx] = sum;
}

void spmm_csr(int rows, int cols, int nnz, int nvec, const int* row_ptr, const int* col_idx, const float* values,
              const float* X, float* Y) {
    long long total = (long long)rows * nvec;
    if (total <= 0) return;
    spmm_csr_kernel<<<(unsigned)((total + 255) / 256), 256>>>(rows, nvec, row_ptr, col_idx, values, X, Y);
}
