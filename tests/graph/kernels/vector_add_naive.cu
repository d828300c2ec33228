// regrapht-expect: parallelize
// The first CUDA port of c[i] = a[i] + b[i]: one thread per element.
#include <cuda_runtime.h>

__global__ void vector_add(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        c[i] = a[i] + b[i];
    }
}

void launch_vector_add(const float* a, const float* b, float* c, int n) {
    int block = 256;
    int grid = (n + block - 1) / block;
    vector_add<<<grid, block>>>(a, b, c, n);
}
