// One thread per matrix: the serial factorization, reading A and building L in global memory.
__global__ void cholesky_matrix_per_thread(int batch, int n, const double* A, double* L) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= batch) return;
    const double* a = A + (long long)k * n * n;
    double* l = L + (long long)k * n * n;
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j <= i; ++j) {
            double s = a[i * n + j];
            for (int p = 0; p < j; ++p) s -= l[i * n + p] * l[j * n + p];
            l[i * n + j] = i == j ? sqrt(s) : s / l[j * n + j];
        }
        for (int j = i + 1; j < n; ++j) l[i * n + j] = 0.0;
    }
}

void batched_cholesky_fp64(int batch, int n, const double* A, double* L) {
    if (batch <= 0 || n <= 0) return;
    cholesky_matrix_per_thread<<<(batch + 127) / 128, 128>>>(batch, n, A, L);
}
