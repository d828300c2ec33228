__global__ void sddmm_csr_row_per_thread(int rows, int dim, const int* row_ptr, const int* col_idx,
                                         const float* values, const float* U, const float* V, float* out) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    const float* u = U + (long long)r * dim;
    for (int k = row_ptr[r]; k < row_ptr[r + 1]; ++k) {
        const float* v = V + (long long)col_idx[k] * dim;
        float dot = 0.0f;
        for (int d = 0; d < dim; ++d) dot += u[d] * v[d];
        out[k] = values[k] * dot;
    }
}

void sddmm_csr(int rows, int cols, int nnz, int dim, const int* row_ptr, const int* col_idx, const float* values,
               const float* U, const float* V, float* out) {
    if (rows <= 0) return;
    sddmm_csr_row_per_thread<<<(rows + 127) / 128, 128>>>(rows, dim, row_ptr, col_idx, values, U, V, out);
}
