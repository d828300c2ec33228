// regrapht-expect: parallelize, cooperative_groups, grid_stride_loop, block_tree_reduction, atomic_operations, atomic_privatization, fast_math_intrinsics
#include <cooperative_groups.h>
#include <cuda_runtime.h>
namespace cg = cooperative_groups;

// Normalize a vector in one cooperative launch: block sums, grid-wide barrier, then scale.
__global__ void normalize(float* x, float* total, int n) {
    cg::grid_group grid = cg::this_grid();
    cg::thread_block block = cg::this_thread_block();
    __shared__ float partial[256];
    float s = 0.0f;
    for (int i = grid.thread_rank(); i < n; i += grid.size()) s += x[i] * x[i];
    partial[threadIdx.x] = s;
    block.sync();
    for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
        block.sync();
        __syncthreads();
    }
    if (block.thread_rank() == 0) atomicAdd(total, partial[0]);
    grid.sync();
    float inv = rsqrtf(*total);
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) x[i] *= inv;
}
