// Library baseline: one cuBLAS GEMM (bf16 inputs, fp32 output and accumulation, tensor cores) for
// both projections at once, H = X * W (M x 2N), then one thread per output for the biases, GELU
// and the product. Row-major H = X W is column-major H^T = W^T X^T, which cuBLAS computes with no
// transposes from the row-major buffers. The handle and H's buffer are kept between calls.
#include <cublas_v2.h>

static cublasHandle_t blas() {
    static cublasHandle_t handle = nullptr;
    if (handle == nullptr) cublasCreate(&handle);
    return handle;
}

static float* projection_buffer(size_t count) {
    static float* buffer = nullptr;
    static size_t capacity = 0;
    if (count > capacity) {
        if (buffer != nullptr) cudaFree(buffer);
        if (cudaMalloc(&buffer, count * sizeof(float)) != cudaSuccess) {
            buffer = nullptr;  // asked again next call; without one the call writes nothing, which the checks reject
            capacity = 0;
        } else {
            capacity = count;
        }
    }
    return buffer;
}

__global__ void gate_epilogue(int M, int N, const float* H, const float* bias, float* Y) {
    const long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= (long long)M * N) return;
    const long long r = idx / N;
    const int c = (int)(idx - r * N);
    const float g = H[r * 2 * N + c] + bias[c];
    const float u = H[r * 2 * N + N + c] + bias[N + c];
    Y[idx] = 0.5f * g * erfcf(-g * 0.70710678f) * u;
}

void geglu_proj_bf16(int M, int N, int K, const unsigned short* X, const unsigned short* W, const float* bias,
                     float* Y) {
    if (M <= 0 || N <= 0) return;
    float* H = projection_buffer((size_t)M * 2 * N);
    const float one = 1.0f, zero = 0.0f;
    cublasGemmEx(blas(), CUBLAS_OP_N, CUBLAS_OP_N, 2 * N, M, K, &one, W, CUDA_R_16BF, 2 * N, X, CUDA_R_16BF, K,
                 &zero, H, CUDA_R_32F, 2 * N, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    const long long total = (long long)M * N;
    gate_epilogue<<<(unsigned)((total + 255) / 256), 256>>>(M, N, H, bias, Y);
}
