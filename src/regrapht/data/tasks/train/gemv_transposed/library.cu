// Library baseline: cuBLAS SGEMV. A row-major m x n matrix is the column-major n x m matrix A^T,
// so y = A^T x is that column-major matrix times x, untransposed.
#include <cublas_v2.h>

static cublasHandle_t library_handle() {
    static cublasHandle_t handle = nullptr;
    if (handle == nullptr) {
        cublasCreate(&handle);
        cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH);  // FP32 throughout: no TF32
    }
    return handle;
}

void gemv_transposed(int m, int n, float alpha, const float* A, const float* x, float beta, float* y) {
    if (n <= 0) return;
    if (m <= 0) {  // A^T x is empty: y = beta * y, which SGEMV skips for a zero-column matrix
        cublasSscal(library_handle(), n, &beta, y, 1);
        return;
    }
    cublasSgemv(library_handle(), CUBLAS_OP_N, n, m, &alpha, A, n, x, 1, &beta, y, 1);
}
