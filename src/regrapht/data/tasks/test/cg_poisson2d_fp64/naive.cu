// The serial loops as kernels, one thread per grid point each: q = A p, the dot products (block
// sums added atomically into scalars that live on the device), the x and r update, and the p update.
// alpha and beta are formed inside the kernels from those scalars, so the host never synchronizes.

__global__ void apply_laplacian(int nx, int ny, const double* p, double* q) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= nx || j >= ny) return;
    const long long k = (long long)j * nx + i;
    double v = 4.0 * p[k];
    if (i > 0) v -= p[k - 1];
    if (i + 1 < nx) v -= p[k + 1];
    if (j > 0) v -= p[k - nx];
    if (j + 1 < ny) v -= p[k + nx];
    q[k] = v;
}

__global__ void dot_product(long long n, const double* a, const double* c, double* total) {
    __shared__ double part[256];
    const long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    part[threadIdx.x] = k < n ? a[k] * c[k] : 0.0;
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half /= 2) {
        if (threadIdx.x < half) part[threadIdx.x] += part[threadIdx.x + half];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(total, part[0]);
}

__global__ void update_x_r(long long n, const double* rr, const double* pq, const double* p, const double* q,
                           double* x, double* r) {
    const long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n) return;
    const double alpha = *pq != 0.0 ? *rr / *pq : 0.0;
    x[k] += alpha * p[k];
    r[k] -= alpha * q[k];
}

__global__ void update_p(long long n, const double* rr_next, const double* rr, const double* r, double* p) {
    const long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n) return;
    const double beta = *rr != 0.0 ? *rr_next / *rr : 0.0;
    p[k] = r[k] + beta * p[k];
}

void cg_poisson2d_fp64(int nx, int ny, int iters, const double* b, double* x, double* work) {
    const long long n = (long long)nx * ny;
    if (n <= 0) return;
    double* r = work;
    double* p = work + n;
    double* q = work + 2 * n;
    double* rr = work + 3 * n;        // rr[it]: r.r before iteration it
    double* pq = rr + iters + 1;      // pq[it]
    cudaMemsetAsync(rr, 0, (2 * iters + 1) * sizeof(double));
    cudaMemsetAsync(x, 0, n * sizeof(double));
    cudaMemcpyAsync(r, b, n * sizeof(double), cudaMemcpyDeviceToDevice);
    cudaMemcpyAsync(p, b, n * sizeof(double), cudaMemcpyDeviceToDevice);
    const unsigned blocks = (unsigned)((n + 255) / 256);
    dot_product<<<blocks, 256>>>(n, r, r, rr);
    const dim3 tile(32, 8), grid((nx + 31) / 32, (ny + 7) / 8);
    for (int it = 0; it < iters; ++it) {
        apply_laplacian<<<grid, tile>>>(nx, ny, p, q);
        dot_product<<<blocks, 256>>>(n, p, q, pq + it);
        update_x_r<<<blocks, 256>>>(n, rr + it, pq + it, p, q, x, r);
        dot_product<<<blocks, 256>>>(n, r, r, rr + it + 1);
        update_p<<<blocks, 256>>>(n, rr + it + 1, rr + it, r, p);
    }
}
