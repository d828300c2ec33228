// steps: parallelize, work_decomposition, block_tree_reduction, atomic_operations
// Only n threads had work in the naive port. Here the rows are split into chunks over a 2D grid
// (column tiles x row chunks): threadIdx.x walks columns (coalesced rows of A), threadIdx.y
// interleaves rows of the chunk; the block folds its threadIdx.y partials in shared memory and
// adds alpha * partial to y with one atomic per column, after y has been scaled by beta.

#define BX 32
#define BY 8
#define ROWS_PER_BLOCK 1024

__global__ void scale_y(int n, float beta, float* y) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < n) y[j] *= beta;
}

__global__ void __launch_bounds__(BX * BY) gemv_t_chunks(int m, int n, float alpha, const float* __restrict__ A,
                                                         const float* __restrict__ x, float* __restrict__ y) {
    __shared__ float s_part[BY][BX + 1];
    int j = blockIdx.x * BX + threadIdx.x;
    int row0 = blockIdx.y * ROWS_PER_BLOCK;
    int row1 = min(m, row0 + ROWS_PER_BLOCK);
    float sum = 0.0f;
    if (j < n) {
        #pragma unroll 4
        for (int i = row0 + threadIdx.y; i < row1; i += BY) sum += A[(long long)i * n + j] * __ldg(x + i);
    }
    s_part[threadIdx.y][threadIdx.x] = sum;
    __syncthreads();
    for (int half = BY / 2; half > 0; half >>= 1) {
        if (threadIdx.y < half) s_part[threadIdx.y][threadIdx.x] += s_part[threadIdx.y + half][threadIdx.x];
        __syncthreads();
    }
    if (threadIdx.y == 0 && j < n) atomicAdd(y + j, alpha * s_part[0][threadIdx.x]);
}

void gemv_transposed(int m, int n, float alpha, const float* A, const float* x, float beta, float* y) {
    if (n <= 0) return;
    scale_y<<<(n + 255) / 256, 256>>>(n, beta, y);
    if (m <= 0) return;
    dim3 block(BX, BY);
    dim3 grid((n + BX - 1) / BX, (m + ROWS_PER_BLOCK - 1) / ROWS_PER_BLOCK);
    gemv_t_chunks<<<grid, block>>>(m, n, alpha, A, x, y);
}
