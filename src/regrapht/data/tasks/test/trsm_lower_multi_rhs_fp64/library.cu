// Library baseline: cuBLAS DTRSM, in place on X after B is copied there. Row-major L X = B is
// column-major X^T L^T = B^T: the right side, and row-major L read column-major is L^T, an upper
// triangle (its strict lower part, our unrelated upper data, is not referenced).
#include <cublas_v2.h>

static cublasHandle_t library_handle() {
    static cublasHandle_t handle = nullptr;
    if (handle == nullptr) cublasCreate(&handle);
    return handle;
}

void trsm_lower_multi_rhs_fp64(int n, int r, const double* L, const double* B, double* X) {
    if (n <= 0 || r <= 0) return;
    cudaMemcpyAsync(X, B, (size_t)n * r * sizeof(double), cudaMemcpyDeviceToDevice);
    const double one = 1.0;
    cublasDtrsm(library_handle(), CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, r, n,
                &one, L, n, X, r);
}
