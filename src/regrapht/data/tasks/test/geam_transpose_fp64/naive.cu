// One thread per element of C; x runs along a row of C (and of A), so the reads of B stride by m.
__global__ void geam_element(int m, int n, double alpha, const double* A, double beta, const double* B, double* C) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= m || j >= n) return;
    long long ij = (long long)i * n + j;
    C[ij] = alpha * A[ij] + beta * B[(long long)j * m + i];
}

void geam_transpose_fp64(int m, int n, double alpha, const double* A, double beta, const double* B, double* C) {
    if (m <= 0 || n <= 0) return;
    dim3 block(16, 16);
    dim3 grid((n + 15) / 16, (m + 15) / 16);
    geam_element<<<grid, block>>>(m, n, alpha, A, beta, B, C);
}
