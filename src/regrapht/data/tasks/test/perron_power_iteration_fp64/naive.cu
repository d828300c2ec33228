// The serial loop as kernels, one launch per step of an iteration: a thread per row for w = A u,
// a block-reduced sum of squares into one scalar, and a thread per entry for u = w / ||w||.

__global__ void row_products(int n, const double* A, const double* u, double* w) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const double* row = A + (long long)i * n;
    double s = 0.0;
    for (int j = 0; j < n; ++j) s += row[j] * u[j];
    w[i] = s;
}

__global__ void sum_squares(int n, const double* w, double* total) {
    __shared__ double part[64];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    double x = i < n ? w[i] : 0.0;
    part[threadIdx.x] = x * x;
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half /= 2) {
        if (threadIdx.x < half) part[threadIdx.x] += part[threadIdx.x + half];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(total, part[0]);
}

__global__ void divide_by_norm(int n, const double* w, const double* total, double* u) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) u[i] = w[i] / sqrt(*total);
}

__global__ void store_norm(const double* total, double* lambda) { *lambda = sqrt(*total); }

void perron_power_iteration_fp64(int n, int iters, const double* A, const double* v0, double* v,
                                 double* lambda, double* work) {
    if (n <= 0) return;
    double* u = work;
    double* w = work + n;
    double* total = work + 2 * n;
    // 64-thread blocks: a row per thread gives 12288 threads at the bench size, which 256-thread
    // blocks would put on only 48 of the GPU's multiprocessors
    const int threads = 64, blocks = (n + threads - 1) / threads;
    cudaMemsetAsync(total, 0, sizeof(double));
    sum_squares<<<blocks, threads>>>(n, v0, total);
    store_norm<<<1, 1>>>(total, lambda);
    divide_by_norm<<<blocks, threads>>>(n, v0, total, iters == 0 ? v : u);
    for (int it = 0; it < iters; ++it) {
        row_products<<<blocks, threads>>>(n, A, u, w);
        cudaMemsetAsync(total, 0, sizeof(double));
        sum_squares<<<blocks, threads>>>(n, w, total);
        divide_by_norm<<<blocks, threads>>>(n, w, total, it == iters - 1 ? v : u);
        store_norm<<<1, 1>>>(total, lambda);
    }
}
