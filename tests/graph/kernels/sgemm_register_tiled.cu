// regrapht-expect: parallelize, shared_memory_tiling, register_tiling, loop_unrolling, vectorized_access, launch_config_tuning
#include <cuda_runtime.h>
#define BM 64
#define BN 64
#define BK 8
#define TM 4
#define TN 4

// 16x16 threads, each owning a 4x4 register tile of C; A and B tiles staged in shared memory.
__global__ __launch_bounds__(256) void sgemm_reg(const float* A, const float* B, float* C, int N) {
    __shared__ float As[BK][BM];
    __shared__ float Bs[BK][BN];
    float acc[TM][TN] = {0.0f};
    float a_reg[TM];
    float b_reg[TN];
    int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
    int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    for (int k0 = 0; k0 < N; k0 += BK) {
        int lr = threadIdx.x / 2, lc = (threadIdx.x % 2) * 4;
        float4 av = *reinterpret_cast<const float4*>(&A[(row0 + lr) * N + k0 + lc]);
        As[lc + 0][lr] = av.x;
        As[lc + 1][lr] = av.y;
        As[lc + 2][lr] = av.z;
        As[lc + 3][lr] = av.w;
        int br = threadIdx.x / 16, bc = (threadIdx.x % 16) * 4;
        if (br < BK) *reinterpret_cast<float4*>(&Bs[br][bc]) = *reinterpret_cast<const float4*>(&B[(k0 + br) * N + col0 + bc]);
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BK; ++k) {
#pragma unroll
            for (int i = 0; i < TM; ++i) a_reg[i] = As[k][ty * TM + i];
#pragma unroll
            for (int j = 0; j < TN; ++j) b_reg[j] = Bs[k][tx * TN + j];
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] += a_reg[i] * b_reg[j];
        }
        __syncthreads();
    }
    for (int i = 0; i < TM; ++i)
        for (int j = 0; j < TN; ++j) C[(row0 + ty * TM + i) * N + col0 + tx * TN + j] = acc[i][j];
}
