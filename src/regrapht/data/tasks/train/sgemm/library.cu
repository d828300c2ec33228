// Library baseline: cuBLAS SGEMM in FP32 (default math mode: no TF32). Row-major C = A B is the column-major
// product C^T = B^T A^T, so B and A swap places and M and N swap roles.
#include <cublas_v2.h>

static cublasHandle_t library_handle() {
    static cublasHandle_t handle = nullptr;
    if (handle == nullptr) {
        cublasCreate(&handle);
        cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH);  // FP32 throughout: no TF32
    }
    return handle;
}

void sgemm(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C) {
    if (M <= 0 || N <= 0) return;
    int ldb = N, lda = K > 0 ? K : 1;
    cublasSgemm(library_handle(), CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &alpha, B, ldb, A, lda, &beta, C, N);
}
