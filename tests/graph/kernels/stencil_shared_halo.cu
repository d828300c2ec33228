// regrapht-expect: parallelize, shared_memory_tiling
#include <cuda_runtime.h>
#define BLOCK 256
#define R 3

// 1-D 7-point stencil: each block stages its segment plus a halo of R cells on each side.
__global__ void stencil1d(const float* in, float* out, int n) {
    __shared__ float s[BLOCK + 2 * R];
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    int l = threadIdx.x + R;
    s[l] = g < n ? in[g] : 0.0f;
    if (threadIdx.x < R) {
        s[l - R] = g >= R ? in[g - R] : 0.0f;
        s[l + BLOCK] = g + BLOCK < n ? in[g + BLOCK] : 0.0f;
    }
    __syncthreads();
    if (g < n) {
        float v = 0.0f;
        for (int o = -R; o <= R; ++o) v += s[l + o];
        out[g] = v / (2 * R + 1);
    }
}
