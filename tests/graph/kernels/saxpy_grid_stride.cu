// regrapht-expect: parallelize, grid_stride_loop, read_only_cache
#include <cuda_runtime.h>

__global__ void saxpy(int n, float alpha, const float* __restrict__ x, float* __restrict__ y) {
    const int stride = blockDim.x * gridDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        y[i] = alpha * x[i] + y[i];
    }
}

void run_saxpy(int n, float alpha, const float* x, float* y, int num_sms) {
    saxpy<<<32 * num_sms, 256>>>(n, alpha, x, y);
}
