// Jacobi iterations in the first block: the matrix is strictly diagonally dominant, so they converge.
// x (zero at the start) holds the iterate; a sweep computes every new value before any is written.
#define MAX_ROWS 8192
__device__ double next_x[MAX_ROWS];

__global__ void solveLinearSystem(const double* A, const double* b, double* x, size_t N) {
    if (blockIdx.x != 0 || blockIdx.y != 0 || N > MAX_ROWS) return;
    const size_t tid = threadIdx.y * blockDim.x + threadIdx.x, threads = blockDim.x * blockDim.y;
    for (int sweep = 0; sweep < 2000; ++sweep) {
        int moving = 0;
        for (size_t i = tid; i < N; i += threads) {
            double s = b[i];
            for (size_t j = 0; j < N; ++j)
                if (j != i) s -= A[i * N + j] * x[j];
            double v = s / A[i * N + i];
            moving |= fabs(v - x[i]) > 1e-15 * fabs(v);
            next_x[i] = v;
        }
        __syncthreads();
        for (size_t i = tid; i < N; i += threads) x[i] = next_x[i];
        if (!__syncthreads_or(moving)) break;
    }
}
