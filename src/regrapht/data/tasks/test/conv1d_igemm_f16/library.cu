// Library baseline: the classic im2col + GEMM lowering. One kernel copies the K*Cin inputs of every
// output step into a row of a (batch*Lout) x (K*Cin) fp16 matrix and fills y with the bias; one
// cuBLAS GemmEx (fp16 inputs, fp32 accumulation and output, tensor cores) adds the product. Row-major
// y = cols * w^T is column-major y^T = w^T(col-major, transposed) * cols^T: no copies of w. The
// handle and the im2col buffer are kept between calls.
#include <cublas_v2.h>
#include <cuda_fp16.h>

static cublasHandle_t blas() {
    static cublasHandle_t handle = nullptr;
    if (handle == nullptr) cublasCreate(&handle);
    return handle;
}

static __half* column_buffer(size_t count) {
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

__global__ void im2col_bias(int M, int Lout, int Lin, int Cin, int span, int Cout, const __half* x, const float* bias,
                            __half* cols, float* y) {
    const long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long m = idx / span;
    if (m < M) {
        const int j = (int)(idx - m * span);
        cols[idx] = x[((m / Lout) * Lin + m % Lout) * Cin + j];
    }
    if (idx < (long long)M * Cout) y[idx] = bias[idx % Cout];
}

void conv1d_igemm_f16(int batch, int Lout, int Cin, int Cout, int K, const unsigned short* x, const unsigned short* w,
                      const float* bias, float* y) {
    const int M = batch * Lout, span = K * Cin;
    if (M <= 0 || Cout <= 0) return;
    __half* cols = column_buffer((size_t)M * span);
    if (cols == nullptr) return;
    const long long work = (long long)M * (span > Cout ? span : Cout);
    im2col_bias<<<(unsigned)((work + 255) / 256), 256>>>(M, Lout, Lout + K - 1, Cin, span, Cout,
                                                        reinterpret_cast<const __half*>(x), bias, cols, y);
    const float one = 1.0f;
    cublasGemmEx(blas(), CUBLAS_OP_T, CUBLAS_OP_N, Cout, M, span, &one, w, CUDA_R_16F, span, cols, CUDA_R_16F, span, &one,
                 y, CUDA_R_32F, Cout, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
}
