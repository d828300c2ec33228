// regrapht-expect: parallelize, grid_stride_loop, warp_shuffle_reduction, atomic_operations, atomic_privatization, read_only_cache
#include <cuda_runtime.h>

__inline__ __device__ float warp_reduce_sum(float v) {
    for (int offset = warpSize / 2; offset > 0; offset /= 2) {
        v += __shfl_down_sync(0xffffffffu, v, offset);
    }
    return v;
}

__global__ void dot(const float* __restrict__ x, const float* __restrict__ y, float* result, int n) {
    float sum = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        sum += x[i] * y[i];
    }
    sum = warp_reduce_sum(sum);
    int lane = threadIdx.x % warpSize;
    if (lane == 0) {
        atomicAdd(result, sum);
    }
}
