// Library baseline: cuBLAS strided batched SGEMM in FP32 (no TF32). Each row-major C[b] = A[b] B[b] is the
// column-major product C[b]^T = B[b]^T A[b]^T.
#include <cublas_v2.h>

static cublasHandle_t library_handle() {
    static cublasHandle_t handle = nullptr;
    if (handle == nullptr) {
        cublasCreate(&handle);
        cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH);  // FP32 throughout: no TF32
    }
    return handle;
}

void batched_small_gemm(int batch, int m, int n, int k, const float* A, const float* B, float* C) {
    if (batch <= 0 || m <= 0 || n <= 0) return;
    const float one = 1.0f, zero = 0.0f;
    cublasSgemmStridedBatched(library_handle(), CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, B, n,
                              (long long)k * n, A, k > 0 ? k : 1, (long long)m * k, &zero, C, n,
                              (long long)m * n, batch);
}
