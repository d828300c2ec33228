// Library baseline: cuBLAS SGEMV. A row-major m x n matrix is the column-major n x m matrix A^T,
// so y = A x is the transposed product of that column-major matrix.
#include <cublas_v2.h>

static cublasHandle_t library_handle() {
    static cublasHandle_t handle = nullptr;
    if (handle == nullptr) {
        cublasCreate(&handle);
        cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH);  // FP32 throughout: no TF32
    }
    return handle;
}

void gemv(int m, int n, float alpha, const float* A, const float* x, float beta, float* y) {
    if (m <= 0) return;
    if (n <= 0) {  // A x is empty: y = beta * y, which SGEMV skips for a zero-column matrix
        cublasSscal(library_handle(), m, &beta, y, 1);
        return;
    }
    cublasSgemv(library_handle(), CUBLAS_OP_T, n, m, &alpha, A, n, x, 1, &beta, y, 1);
}
