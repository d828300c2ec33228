#include <cuda_fp16.h>

// One thread per output element: a dot product of a row of A and a column of B, fp16 operands
// widened to fp32 and accumulated in fp32 on the CUDA cores.
__global__ void hgemm_naive_kernel(int M, int N, int K, const __half* A, const __half* B, float* C) {
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= M || col >= N) return;
    float acc = 0.0f;
    for (int p = 0; p < K; ++p)
        acc += __half2float(A[(long long)row * K + p]) * __half2float(B[(long long)p * N + col]);
    C[(long long)row * N + col] = acc;
}

void hgemm_f16(int M, int N, int K, const unsigned short* A, const unsigned short* B, float* C) {
    if (M <= 0 || N <= 0) return;
    dim3 block(16, 16);
    dim3 grid((N + 15) / 16, (M + 15) / 16);
    hgemm_naive_kernel<<<grid, block>>>(M, N, K, reinterpret_cast<const __half*>(A),
                                        reinterpret_cast<const __half*>(B), C);
}
