// regrapht-expect: parallelize, stream_overlap, host_device_transfer_optimization
#include <cuda_runtime.h>

__global__ void scale(float* d, int n, float f) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) d[i] *= f;
}

// Split the array in chunks; copy-in, compute and copy-out of different chunks overlap.
void scale_streamed(float* host, int n, float f) {
    const int kStreams = 4;
    float* pinned;
    cudaMallocHost(&pinned, n * sizeof(float));
    for (int i = 0; i < n; ++i) pinned[i] = host[i];
    float* dev;
    cudaMalloc(&dev, n * sizeof(float));
    cudaStream_t streams[kStreams];
    for (int s = 0; s < kStreams; ++s) cudaStreamCreate(&streams[s]);
    int chunk = (n + kStreams - 1) / kStreams;
    for (int s = 0; s < kStreams; ++s) {
        int off = s * chunk;
        int len = off + chunk > n ? n - off : chunk;
        if (len <= 0) break;
        cudaMemcpyAsync(dev + off, pinned + off, len * sizeof(float), cudaMemcpyHostToDevice, streams[s]);
        scale<<<(len + 255) / 256, 256, 0, streams[s]>>>(dev + off, len, f);
        cudaMemcpyAsync(pinned + off, dev + off, len * sizeof(float), cudaMemcpyDeviceToHost, streams[s]);
    }
    cudaDeviceSynchronize();
    for (int i = 0; i < n; ++i) host[i] = pinned[i];
    for (int s = 0; s < kStreams; ++s) cudaStreamDestroy(streams[s]);
    cudaFree(dev);
    cudaFreeHost(pinned);
}
