// regrapht-target: cpu
// regrapht-expect: parallelize, reduction_clause, simd_vectorization, schedule_tuning
#include <cmath>
#include <cstddef>

double weighted_norm(const double* x, const double* w, std::size_t n) {
    double sum = 0.0;
#pragma omp parallel for simd reduction(+ : sum) schedule(static)
    for (std::size_t i = 0; i < n; ++i) {
        sum += w[i] * x[i] * x[i];
    }
    return std::sqrt(sum);
}

void spmv_rows(const int* row_ptr, const int* col, const double* val, const double* x, double* y, int rows) {
#pragma omp parallel for schedule(dynamic, 64)
    for (int r = 0; r < rows; ++r) {
        double acc = 0.0;
        for (int k = row_ptr[r]; k < row_ptr[r + 1]; ++k) acc += val[k] * x[col[k]];
        y[r] = acc;
    }
}
