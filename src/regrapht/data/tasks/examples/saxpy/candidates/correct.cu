// Vectorized grid-stride SAXPY: float4 loads and stores, scalar tail.
#include <cuda_runtime.h>

__global__ void saxpy_vec4(int n, float a, const float* __restrict__ x, float* __restrict__ y) {
    int n4 = n / 4;
    const float4* x4 = reinterpret_cast<const float4*>(x);
    float4* y4 = reinterpret_cast<float4*>(y);
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += blockDim.x * gridDim.x) {
        float4 xv = x4[i], yv = y4[i];
        yv.x = a * xv.x + yv.x;
        yv.y = a * xv.y + yv.y;
        yv.z = a * xv.z + yv.z;
        yv.w = a * xv.w + yv.w;
        y4[i] = yv;
    }
    int tail = n4 * 4 + blockIdx.x * blockDim.x + threadIdx.x;
    if (tail < n) y[tail] = a * x[tail] + y[tail];
}

extern "C" void saxpy(int n, float a, const float* x, float* y) {
    if (n <= 0) return;
    int threads = 256;
    int blocks = (n / 4 + threads - 1) / threads;
    if (blocks < 1) blocks = 1;
    if (blocks > 132 * 16) blocks = 132 * 16;
    saxpy_vec4<<<blocks, threads>>>(n, a, x, y);
}
