// Library baseline: cuBLAS DSPMV. The row-major lower packing is the column-major upper packing
// (column i of the upper triangle holds A[0..i][i] = A[i][0..i]), so the fill mode is UPPER.
#include <cublas_v2.h>

static cublasHandle_t library_handle() {
    static cublasHandle_t handle = nullptr;
    if (handle == nullptr) cublasCreate(&handle);
    return handle;
}

void symv_packed_fp64(int n, const double* ap, const double* x, double* y) {
    if (n <= 0) return;
    const double one = 1.0, zero = 0.0;
    cublasDspmv(library_handle(), CUBLAS_FILL_MODE_UPPER, n, &one, ap, x, 1, &zero, y, 1);
}
