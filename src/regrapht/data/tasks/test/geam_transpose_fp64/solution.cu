// steps: memory_coalescing, shared_memory_tiling, bank_conflict_avoidance
// The transposed operand goes through a 32 x 32 shared-memory tile: a block reads a 32 x 32 tile of
// B with consecutive threads on consecutive elements of a row of B, and reads it back by columns,
// so every global access (A, B and C) is a full 256-byte row segment. The pitch of 33 doubles puts
// a column's elements on distinct banks. 32 x 8 threads, each does four rows of the tile.
#define TILE 32
#define ROWS 8

__global__ void __launch_bounds__(TILE * ROWS) geam_tiled(int m, int n, double alpha, const double* __restrict__ A,
                                                         double beta, const double* __restrict__ B,
                                                         double* __restrict__ C) {
    __shared__ double tile[TILE][TILE + 1];
    const int i0 = blockIdx.y * TILE, j0 = blockIdx.x * TILE;
    // tile[r][c] = B[j0 + r][i0 + c]
    const int c = i0 + threadIdx.x;
#pragma unroll
    for (int r = threadIdx.y; r < TILE; r += ROWS) {
        const int jb = j0 + r;
        if (jb < n && c < m) tile[r][threadIdx.x] = B[(long long)jb * m + c];
    }
    __syncthreads();
    const int j = j0 + threadIdx.x;
    if (j >= n) return;
#pragma unroll
    for (int r = threadIdx.y; r < TILE; r += ROWS) {
        const int i = i0 + r;
        if (i < m) {
            const long long ij = (long long)i * n + j;
            C[ij] = alpha * A[ij] + beta * tile[threadIdx.x][r];
        }
    }
}

void geam_transpose_fp64(int m, int n, double alpha, const double* A, double beta, const double* B, double* C) {
    if (m <= 0 || n <= 0) return;
    dim3 grid((n + TILE - 1) / TILE, (m + TILE - 1) / TILE);
    geam_tiled<<<grid, dim3(TILE, ROWS)>>>(m, n, alpha, A, beta, B, C);
}
