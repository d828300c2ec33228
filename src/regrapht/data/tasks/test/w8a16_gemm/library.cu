// Library baseline: dequantize the int8 weights to an fp16 N x K matrix (one thread per weight), then
// one cuBLAS GemmEx (fp16 inputs, fp32 accumulation and output, tensor cores). Row-major Y = X W^T is
// column-major Y^T = W^T(col-major, transposed) * X^T. The handle and the fp16 buffer are kept
// between calls.
#include <cublas_v2.h>
#include <cuda_fp16.h>

static cublasHandle_t blas() {
    static cublasHandle_t handle = nullptr;
    if (handle == nullptr) cublasCreate(&handle);
    return handle;
}

static __half* weight_buffer(size_t count) {
    static __half* buffer = nullptr;
    static size_t capacity = 0;
    if (count > capacity) {
        if (buffer != nullptr) cudaFree(buffer);
        if (cudaMalloc(&buffer, count * sizeof(__half)) != cudaSuccess) {
            buffer = nullptr;  // asked again next call; without one the call writes nothing, which the checks reject
            capacity = 0;
        } else {
            capacity = count;
        }
    }
    return buffer;
}

__global__ void dequantize(int N, int K, const signed char* Wq, const float* scales, __half* W) {
    const long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= (long long)N * K) return;
    const long long n = idx / K;
    const int k = (int)(idx - n * K);
    W[idx] = __float2half_rn((float)Wq[idx] * scales[n * ((K + 127) / 128) + k / 128]);
}

void w8a16_gemm(int M, int N, int K, const unsigned short* X, const signed char* Wq, const float* scales, float* Y) {
    if (M <= 0 || N <= 0) return;
    __half* W = weight_buffer((size_t)N * K);
    if (W == nullptr) return;
    const long long total = (long long)N * K;
    dequantize<<<(unsigned)((total + 255) / 256), 256>>>(N, K, Wq, scales, W);
    const float one = 1.0f, zero = 0.0f;
    cublasGemmEx(blas(), CUBLAS_OP_T, CUBLAS_OP_N, N, M, K, &one, W, CUDA_R_16F, K, X, CUDA_R_16F, K, &zero, Y,
                 CUDA_R_32F, N, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
}
