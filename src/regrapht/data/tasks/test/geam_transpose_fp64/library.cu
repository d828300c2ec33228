// Library baseline: cuBLAS DGEAM. Row-major C (m x n) is column-major C^T (n x m, ld n), and
// C^T = alpha A^T + beta B: A read as column-major is A^T (ld n), B read as column-major is B^T
// (m x n, ld m), so B enters transposed.
#include <cublas_v2.h>

static cublasHandle_t library_handle() {
    static cublasHandle_t handle = nullptr;
    if (handle == nullptr) cublasCreate(&handle);
    return handle;
}

void geam_transpose_fp64(int m, int n, double alpha, const double* A, double beta, const double* B, double* C) {
    if (m <= 0 || n <= 0) return;
    cublasDgeam(library_handle(), CUBLAS_OP_N, CUBLAS_OP_T, n, m, &alpha, A, n, &beta, B, m, C, n);
}
