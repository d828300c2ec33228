void sddmm_csr(int rows, int cols, int nnz, int dim, const int* row_ptr, const int* col_idx, const float* values,
               const float* U, const float* V, float* out) {
    for (int r = 0; r < rows; ++r) {
        const float* u = U + static_cast<long long>(r) * dim;
        for (int k = row_ptr[r]; k < row_ptr[r + 1]; ++k) {
            const float* v = V + static_cast<long long>(col_idx[k]) * dim;
            double dot = 0.0;
            for (int d = 0; d < dim; ++d) dot += static_cast<double>(u[d]) * v[d];
            out[k] = static_cast<float>(values[k] * dot);
        }
    }
}
