// regrapht-expect: parallelize
// A plain kernel whose comments and strings mention optimizations it does not use:
// atomicAdd, __shfl_down_sync, float4, #pragma unroll, __constant__, wmma::mma_sync, cp.async.
#include <cstdio>
#include <cuda_runtime.h>

/* We could use __ldg(&x[i]) and __expf here, but this version does not. */
__global__ void halve(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int half = n / 2;  // an int named half is not half precision
    if (i < half) y[i] = x[i] * 0.5f;
}

void report() { printf("no atomicAdd or __shfl_xor_sync or float4 was used\n"); }
