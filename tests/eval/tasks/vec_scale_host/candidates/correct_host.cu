// Host convention: receives host pointers, moves the data and launches by itself.
#include <cuda_runtime.h>
__global__ void vec_scale_kernel(int n, float a, const float* x, float* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a * x[i];
}
extern "C" void vec_scale(int n, float a, const float* x, float* out) {
    if (n <= 0) return;
    float *dx, *dout;
    cudaMalloc(&dx, n * sizeof(float));
    cudaMalloc(&dout, n * sizeof(float));
    cudaMemcpy(dx, x, n * sizeof(float), cudaMemcpyHostToDevice);
    vec_scale_kernel<<<(n + 255) / 256, 256>>>(n, a, dx, dout);
    cudaMemcpy(out, dout, n * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(dx);
    cudaFree(dout);
}
