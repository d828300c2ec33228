#include <vector>

void spmm_csr(int rows, int cols, int nnz, int nvec, const int* row_ptr, const int* col_idx, const float* values,
              const float* X, float* Y) {
    std::vector<double> acc(nvec);
    for (int r = 0; r < rows; ++r) {
        for (int v = 0; v < nvec; ++v) acc[v] = 0.0;
        for (int k = row_ptr[r]; k < row_ptr[r + 1]; ++k) {
            const double a = values[k];
            const float* xrow = X + static_cast<long long>(col_idx[k]) * nvec;
            for (int v = 0; v < nvec; ++v) acc[v] += a * xrow[v];
        }
        float* yrow = Y + static_cast<long long>(r) * nvec;
        for (int v = 0; v < nvec; ++v) yrow[v] = static_cast<float>(acc[v]);
    }
}
