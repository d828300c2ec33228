// regrapht-expect: parallelize, shared_memory_tiling, async_copy_pipelining, launch_config_tuning, loop_unrolling
#include <cuda_runtime.h>
#include <cuda_pipeline.h>
#define BM 64
#define BK 16

// Double-buffered tiles: the copy of tile t+1 is in flight while tile t is multiplied.
__global__ void __launch_bounds__(256) gemm_pipelined(const float* A, const float* B, float* C, int N) {
    __shared__ float As[2][BM][BK];
    __shared__ float Bs[2][BK][BM];
    int tx = threadIdx.x % BM;
    int ty = threadIdx.x / BM;
    int row = blockIdx.y * BM + tx;
    int col = blockIdx.x * BM + tx;
    float acc = 0.0f;
    int stage = 0;
    for (int r = ty; r < BK; r += 4) {
        __pipeline_memcpy_async(&As[0][tx][r], &A[row * N + r], sizeof(float));
        __pipeline_memcpy_async(&Bs[0][r][tx], &B[r * N + col], sizeof(float));
    }
    __pipeline_commit();
    for (int k0 = 0; k0 < N; k0 += BK) {
        if (k0 + BK < N) {
            for (int r = ty; r < BK; r += 4) {
                __pipeline_memcpy_async(&As[stage ^ 1][tx][r], &A[row * N + k0 + BK + r], sizeof(float));
                __pipeline_memcpy_async(&Bs[stage ^ 1][r][tx], &B[(k0 + BK + r) * N + col], sizeof(float));
            }
        }
        __pipeline_commit();
        __pipeline_wait_prior(1);
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BK; ++k) {
            acc += As[stage][tx][k] * Bs[stage][k][ty];
        }
        __syncthreads();
        stage ^= 1;
    }
    C[row * N + col] = acc;
}
