// The serial iteration as one kernel per vector operation, one thread per row. The dot products
// reduce each block in shared memory and add the block's sum to a device scalar, so alpha and beta
// never leave the GPU. scal[2*it] holds (r.r) before iteration it, scal[2*it + 1] holds (p.q).
#define CG_THREADS 256

__global__ void cg_init(int n, const double* b, double* x, double* r, double* p) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    x[i] = 0.0;
    r[i] = b[i];
    p[i] = b[i];
}

__global__ void cg_dot(int n, const double* u, const double* v, double* out) {
    __shared__ double part[CG_THREADS];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    part[threadIdx.x] = i < n ? u[i] * v[i] : 0.0;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) part[threadIdx.x] += part[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(out, part[0]);
}

__global__ void cg_matvec(int n, const double* diag, const double* off, const double* p, double* q) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double v = diag[i] * p[i];
    if (i > 0) v += off[i - 1] * p[i - 1];
    if (i + 1 < n) v += off[i] * p[i + 1];
    q[i] = v;
}

__global__ void cg_update_xr(int n, const double* scal_it, const double* p, const double* q, double* x, double* r) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double alpha = scal_it[0] / scal_it[1];
    x[i] += alpha * p[i];
    r[i] -= alpha * q[i];
}

__global__ void cg_update_p(int n, const double* scal_it, const double* r, double* p) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double beta = scal_it[2] / scal_it[0];
    p[i] = r[i] + beta * p[i];
}

void cg_tridiag_fp64(int n, int iters, const double* diag, const double* off, const double* b, double* x) {
    if (n <= 0) return;
    static double* work = nullptr;
    static long long capacity = 0;
    long long need = 3LL * n + 2LL * (iters + 1);
    if (need > capacity) {
        if (work) cudaFree(work);
        cudaMalloc(&work, need * sizeof(double));
        capacity = need;
    }
    double *r = work, *p = work + n, *q = work + 2LL * n, *scal = work + 3LL * n;
    cudaMemsetAsync(scal, 0, 2 * (iters + 1) * sizeof(double));
    int blocks = (n + CG_THREADS - 1) / CG_THREADS;
    cg_init<<<blocks, CG_THREADS>>>(n, b, x, r, p);
    cg_dot<<<blocks, CG_THREADS>>>(n, r, r, scal);
    for (int it = 0; it < iters; ++it) {
        double* s = scal + 2 * it;
        cg_matvec<<<blocks, CG_THREADS>>>(n, diag, off, p, q);
        cg_dot<<<blocks, CG_THREADS>>>(n, p, q, s + 1);
        cg_update_xr<<<blocks, CG_THREADS>>>(n, s, p, q, x, r);
        cg_dot<<<blocks, CG_THREADS>>>(n, r, r, s + 2);
        cg_update_p<<<blocks, CG_THREADS>>>(n, s, r, p);
    }
}
