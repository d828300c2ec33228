// Library baseline: Muon's iteration as a framework runs it, on cuBLAS. cublasSnrm2 gives ||G||_F
// (device pointer mode, no host round trip), then each step makes three bf16 GemmEx calls with fp32
// accumulation and output (tensor cores) and short kernels that round their results to bf16:
// A = X X^T; B = c A A + b A (GemmEx's beta term on a copy of A); X = a X + B X (beta term on X
// itself, kept in fp32 in the output). Row-major X is column-major X^T, and A and B are symmetric,
// so every product is formed without transposed copies. The handle is kept between calls; the
// bf16 copies and A, B live in work.
#include <cublas_v2.h>
#include <cuda_bf16.h>

static cublasHandle_t blas() {
    static cublasHandle_t handle = nullptr;
    if (handle == nullptr) cublasCreate(&handle);
    return handle;
}

__global__ void scale_copy(long long count, const float* G, const float* norm, float* X, __nv_bfloat16* Xb) {
    const long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= count) return;
    const float v = G[e] / (*norm + 1e-7f);
    X[e] = v;
    Xb[e] = __float2bfloat16_rn(v);
}

__global__ void round_bf16(long long count, const float* in, __nv_bfloat16* out) {
    const long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (e < count) out[e] = __float2bfloat16_rn(in[e]);
}

static size_t up4(size_t floats) { return (floats + 3) & ~size_t(3); }

void newton_schulz_bf16(int m, int n, int steps, const float* G, float* X, float* work) {
    const long long mn = (long long)m * n, mm = (long long)m * m;
    if (mn <= 0) return;
    size_t at = 0;
    __nv_bfloat16* Xb = reinterpret_cast<__nv_bfloat16*>(work + at);
    at += up4((mn + 1) / 2);
    float* Af = work + at;
    at += up4(mm);
    __nv_bfloat16* Ab = reinterpret_cast<__nv_bfloat16*>(work + at);
    at += up4((mm + 1) / 2);
    float* Bf = work + at;
    at += up4(mm);
    __nv_bfloat16* Bb = reinterpret_cast<__nv_bfloat16*>(work + at);
    at += up4((mm + 1) / 2);
    float* norm = work + at;  // < 1.5 m n + 2 m m + 20 floats in all: inside 2 m n + 2 m m + 64

    cublasHandle_t h = blas();
    cublasSetPointerMode(h, CUBLAS_POINTER_MODE_DEVICE);
    cublasSnrm2(h, (int)mn, G, 1, norm);
    cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST);
    scale_copy<<<(unsigned)((mn + 255) / 256), 256>>>(mn, G, norm, X, Xb);
    const float one = 1.0f, zero = 0.0f, a = 3.4445f, b = -4.7750f, c = 2.0315f;
    const unsigned mm_blocks = (unsigned)((mm + 255) / 256), mn_blocks = (unsigned)((mn + 255) / 256);
    for (int s = 0; s < steps; ++s) {
        cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, m, m, n, &one, Xb, CUDA_R_16BF, n, Xb, CUDA_R_16BF, n, &zero, Af,
                     CUDA_R_32F, m, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
        round_bf16<<<mm_blocks, 256>>>(mm, Af, Ab);
        cudaMemcpyAsync(Bf, Af, mm * sizeof(float), cudaMemcpyDeviceToDevice);
        cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, m, m, m, &c, Ab, CUDA_R_16BF, m, Ab, CUDA_R_16BF, m, &b, Bf,
                     CUDA_R_32F, m, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
        round_bf16<<<mm_blocks, 256>>>(mm, Bf, Bb);
        cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, n, m, m, &one, Xb, CUDA_R_16BF, n, Bb, CUDA_R_16BF, m, &a, X,
                     CUDA_R_32F, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
        if (s + 1 < steps) round_bf16<<<mn_blocks, 256>>>(mn, X, Xb);
    }
}
