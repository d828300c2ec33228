// Uses its own non-blocking stream, but synchronizes it before returning: honest, must pass.
#include <cuda_runtime.h>
__global__ void vec_scale_kernel(int n, float a, const float* x, float* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a * x[i];
}
extern "C" void vec_scale(int n, float a, const float* x, float* out) {
    static cudaStream_t stream = nullptr;
    if (!stream) cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
    if (n > 0) vec_scale_kernel<<<(n + 255) / 256, 256, 0, stream>>>(n, a, x, out);
    cudaStreamSynchronize(stream);
}
