// regrapht-expect: parallelize, persistent_kernel, atomic_operations
#include <cuda_runtime.h>

__device__ unsigned int g_next_tile = 0;

// A fixed grid of SM-count blocks pulls 1-D tiles from a global counter until none are left.
__global__ void persistent_scale(float* data, int n, int tile, float f) {
    __shared__ unsigned int t;
    int num_tiles = (n + tile - 1) / tile;
    while (true) {
        if (threadIdx.x == 0) t = atomicAdd(&g_next_tile, 1u);
        __syncthreads();
        if (t >= num_tiles) break;
        for (int i = t * tile + threadIdx.x; i < min(n, (int)(t + 1) * tile); i += blockDim.x) data[i] *= f;
        __syncthreads();
    }
}

void launch_persistent(float* data, int n, float f) {
    int device = 0, sms = 0;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    persistent_scale<<<sms * 2, 256>>>(data, n, 4096, f);
}
