// regrapht-expect: parallelize, grid_stride_loop, atomic_operations, atomic_privatization
#include <cuda_runtime.h>
#define NUM_BINS 256

__global__ void histogram(const unsigned char* data, unsigned int* hist, int n) {
    __shared__ unsigned int s_hist[NUM_BINS];
    for (int b = threadIdx.x; b < NUM_BINS; b += blockDim.x) s_hist[b] = 0;
    __syncthreads();
    int stride = blockDim.x * gridDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        atomicAdd(&s_hist[data[i]], 1u);
    }
    __syncthreads();
    for (int b = threadIdx.x; b < NUM_BINS; b += blockDim.x) {
        if (s_hist[b] > 0) atomicAdd(&hist[b], s_hist[b]);
    }
}
