#include <vector>

void csr_to_csc(int rows, int cols, int nnz, const int* row_ptr, const int* col_idx, const float* values,
                int* col_ptr, int* row_idx, float* values_t) {
    for (int c = 0; c <= cols; ++c) col_ptr[c] = 0;
    for (int k = 0; k < nnz; ++k) ++col_ptr[col_idx[k] + 1];
    for (int c = 0; c < cols; ++c) col_ptr[c + 1] += col_ptr[c];
    std::vector<int> next(col_ptr, col_ptr + cols);
    // Walking the rows in order fills every column in ascending row order.
    for (int r = 0; r < rows; ++r) {
        for (int k = row_ptr[r]; k < row_ptr[r + 1]; ++k) {
            const int dst = next[col_idx[k]]++;
            row_idx[dst] = r;
            values_t[dst] = values[k];
        }
    }
}
