// Two-pass reduction: grid-stride partial sums with warp shuffles, then one block finishes.
#include <cuda_runtime.h>

constexpr int kThreads = 256;
constexpr int kMaxBlocks = 1024;

__device__ float warp_sum(float v) {
    for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffffu, v, offset);
    return v;
}

__device__ float block_sum(float v) {
    __shared__ float partial[kThreads / 32];
    v = warp_sum(v);
    if ((threadIdx.x & 31) == 0) partial[threadIdx.x >> 5] = v;
    __syncthreads();
    v = threadIdx.x < kThreads / 32 ? partial[threadIdx.x] : 0.0f;
    return threadIdx.x < 32 ? warp_sum(v) : 0.0f;
}

__global__ void partial_sums(int n, const float* __restrict__ x, float* __restrict__ partials) {
    float acc = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) acc += x[i] * x[i];
    acc = block_sum(acc);
    if (threadIdx.x == 0) partials[blockIdx.x] = acc;
}

__global__ void final_sum(int count, const float* __restrict__ partials, float* result) {
    float acc = 0.0f;
    for (int i = threadIdx.x; i < count; i += blockDim.x) acc += partials[i];
    acc = block_sum(acc);
    if (threadIdx.x == 0) result[0] = acc;
}

extern "C" void sum_of_squares(int n, const float* x, float* result) {
    static float* partials = nullptr;  // scratch only: rewritten on every call
    if (partials == nullptr) cudaMalloc(&partials, kMaxBlocks * sizeof(float));
    int blocks = (n + kThreads - 1) / kThreads;
    if (blocks > kMaxBlocks) blocks = kMaxBlocks;
    if (blocks < 1) blocks = 1;
    partial_sums<<<blocks, kThreads>>>(n, x, partials);
    final_sum<<<1, kThreads>>>(blocks, partials, result);
}
