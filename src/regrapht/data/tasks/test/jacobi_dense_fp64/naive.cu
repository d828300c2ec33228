// One kernel per iteration, one thread per row; the iterate ping-pongs between x and a buffer.
__global__ void jacobi_row_per_thread(int n, const double* A, const double* b, const double* x_old, double* x_new) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const double* a = A + (long long)i * n;
    double off = 0.0;
    for (int j = 0; j < n; ++j) {
        if (j != i) off += a[j] * x_old[j];
    }
    x_new[i] = (b[i] - off) / a[i];
}

void jacobi_dense_fp64(int n, int iters, const double* A, const double* b, double* x) {
    if (n <= 0) return;
    static double* buf = nullptr;
    static int capacity = 0;
    if (n > capacity) {
        if (buf) cudaFree(buf);
        cudaMalloc(&buf, 2 * (size_t)n * sizeof(double));
        capacity = n;
    }
    double* v[2] = {buf, buf + n};
    cudaMemsetAsync(v[0], 0, n * sizeof(double));
    if (iters <= 0) {
        cudaMemsetAsync(x, 0, n * sizeof(double));
        return;
    }
    for (int it = 0; it < iters; ++it) {
        double* out = it == iters - 1 ? x : v[(it + 1) & 1];
        jacobi_row_per_thread<<<(n + 63) / 64, 64>>>(n, A, b, v[it & 1], out);
    }
}
