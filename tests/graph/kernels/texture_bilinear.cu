// regrapht-expect: parallelize, texture_or_surface_memory
#include <cuda_runtime.h>

// Resize an image with hardware bilinear filtering through a texture object.
__global__ void resize(cudaTextureObject_t src, float* dst, int out_w, int out_h, float sx, float sy) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= out_w || y >= out_h) return;
    dst[y * out_w + x] = tex2D<float>(src, (x + 0.5f) * sx, (y + 0.5f) * sy);
}
