// Library baseline: cuBLAS SGER. The row-major m x n matrix is the column-major n x m matrix A^T,
// and A^T += alpha y x^T is the same update.
#include <cublas_v2.h>

static cublasHandle_t library_handle() {
    static cublasHandle_t handle = nullptr;
    if (handle == nullptr) cublasCreate(&handle);
    return handle;
}

void ger_update(int m, int n, float alpha, const float* x, const float* y, float* A) {
    if (m <= 0 || n <= 0) return;
    cublasSger(library_handle(), n, m, &alpha, y, 1, x, 1, A, n);
}
