// regrapht-expect: parallelize, constant_memory, read_only_cache
#include <cuda_runtime.h>
#define MAX_MASK 64

__constant__ float c_mask[MAX_MASK];

__global__ void conv1d(const float* in, float* out, int n, int mask_width) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int start = i - mask_width / 2;
    float acc = 0.0f;
    for (int j = 0; j < mask_width; ++j) {
        int p = start + j;
        if (p >= 0 && p < n) acc += __ldg(&in[p]) * c_mask[j];
    }
    out[i] = acc;
}

void set_mask(const float* host_mask, int mask_width) {
    cudaMemcpyToSymbol(c_mask, host_mask, mask_width * sizeof(float));
}
