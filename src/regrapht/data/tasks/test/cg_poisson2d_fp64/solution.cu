// steps: kernel_fusion, algorithmic_change, warp_shuffle_reduction, atomic_operations, persistent_kernel
// Two launches per iteration instead of five, and no q vector: the first forms p = r + beta p_old
// at a point and its four neighbours (so A p comes from r and p_old directly), writes p and sums
// p.(A p); the second recomputes A p from the p just written (its neighbours are in L1/L2), updates
// x and r and sums r.r. p ping-pongs between two buffers because neighbours read the old one.
// Iteration 0 reads b in place of r and p and x = 0 is never read. Each block walks 32 x 8 tiles
// with a grid sized to the occupancy, so a dot product costs one atomic per resident block.

constexpr int TX = 32, TY = 8, THREADS = TX * TY;

__device__ __forceinline__ double block_sum(double v, double* part) {
    for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
    const int warp = threadIdx.x >> 5;
    __syncthreads();  // part is reused by consecutive sums
    if ((threadIdx.x & 31) == 0) part[warp] = v;
    __syncthreads();
    v = threadIdx.x < THREADS / 32 ? part[threadIdx.x] : 0.0;
    if (threadIdx.x < 32)
        for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
    return v;  // in thread 0
}

// p = b (iteration 0) or r + beta p_old at point k
__device__ __forceinline__ double direction(bool first, double beta, long long k, const double* __restrict__ b,
                                            const double* __restrict__ r, const double* __restrict__ p_old) {
    return first ? __ldg(b + k) : fma(beta, __ldg(p_old + k), __ldg(r + k));
}

__global__ void __launch_bounds__(THREADS) new_direction(int nx, int ny, int it, const double* __restrict__ b,
                                                         const double* __restrict__ r, const double* __restrict__ p_old,
                                                         double* __restrict__ p, double* rr, double* pq) {
    __shared__ double part[THREADS / 32];
    const bool first = it == 0;
    const double beta = first ? 0.0 : (rr[it - 1] != 0.0 ? rr[it] / rr[it - 1] : 0.0);
    const int tiles_x = (nx + TX - 1) / TX, tiles = tiles_x * ((ny + TY - 1) / TY);
    const int tx = threadIdx.x % TX, ty = threadIdx.x / TX;
    double sum_pq = 0.0, sum_bb = 0.0;
    for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        const int i = (tile % tiles_x) * TX + tx, j = (tile / tiles_x) * TY + ty;
        if (i >= nx || j >= ny) continue;
        const long long k = (long long)j * nx + i;
        const double c = direction(first, beta, k, b, r, p_old);
        double v = 4.0 * c;
        if (i > 0) v -= direction(first, beta, k - 1, b, r, p_old);
        if (i + 1 < nx) v -= direction(first, beta, k + 1, b, r, p_old);
        if (j > 0) v -= direction(first, beta, k - nx, b, r, p_old);
        if (j + 1 < ny) v -= direction(first, beta, k + nx, b, r, p_old);
        p[k] = c;
        sum_pq += c * v;
        sum_bb += c * c;
    }
    sum_pq = block_sum(sum_pq, part);
    if (threadIdx.x == 0) atomicAdd(pq + it, sum_pq);
    if (first) {
        sum_bb = block_sum(sum_bb, part);
        if (threadIdx.x == 0) atomicAdd(rr, sum_bb);
    }
}

__global__ void __launch_bounds__(THREADS) step(int nx, int ny, int it, const double* __restrict__ b,
                                                const double* __restrict__ p, double* __restrict__ x,
                                                double* __restrict__ r, double* rr, const double* pq) {
    __shared__ double part[THREADS / 32];
    const bool first = it == 0;
    const double alpha = pq[it] != 0.0 ? rr[it] / pq[it] : 0.0;
    const int tiles_x = (nx + TX - 1) / TX, tiles = tiles_x * ((ny + TY - 1) / TY);
    const int tx = threadIdx.x % TX, ty = threadIdx.x / TX;
    double sum_rr = 0.0;
    for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        const int i = (tile % tiles_x) * TX + tx, j = (tile / tiles_x) * TY + ty;
        if (i >= nx || j >= ny) continue;
        const long long k = (long long)j * nx + i;
        const double c = __ldg(p + k);
        double v = 4.0 * c;
        if (i > 0) v -= __ldg(p + k - 1);
        if (i + 1 < nx) v -= __ldg(p + k + 1);
        if (j > 0) v -= __ldg(p + k - nx);
        if (j + 1 < ny) v -= __ldg(p + k + nx);
        x[k] = first ? alpha * c : x[k] + alpha * c;
        const double rv = (first ? __ldg(b + k) : r[k]) - alpha * v;
        r[k] = rv;
        sum_rr += rv * rv;
    }
    sum_rr = block_sum(sum_rr, part);
    if (threadIdx.x == 0) atomicAdd(rr + it + 1, sum_rr);
}

void cg_poisson2d_fp64(int nx, int ny, int iters, const double* b, double* x, double* work) {
    const long long n = (long long)nx * ny;
    if (n <= 0) return;
    double* r = work;
    double* pbuf[2] = {work + n, work + 2 * n};
    double* rr = work + 3 * n;    // rr[it]: r.r before iteration it
    double* pq = rr + iters + 1;  // pq[it]
    cudaMemsetAsync(rr, 0, (2 * iters + 1) * sizeof(double));
    int device = 0, sms = 0, per_sm_a = 0, per_sm_b = 0;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm_a, new_direction, THREADS, 0);
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm_b, step, THREADS, 0);
    const long long tiles = (long long)((nx + TX - 1) / TX) * ((ny + TY - 1) / TY);
    const int blocks_a = (int)(tiles < (long long)sms * per_sm_a ? tiles : (long long)sms * per_sm_a);
    const int blocks_b = (int)(tiles < (long long)sms * per_sm_b ? tiles : (long long)sms * per_sm_b);
    for (int it = 0; it < iters; ++it) {
        double* p = pbuf[it & 1];
        const double* p_old = pbuf[(it + 1) & 1];
        new_direction<<<blocks_a, THREADS>>>(nx, ny, it, b, r, p_old, p, rr, pq);
        step<<<blocks_b, THREADS>>>(nx, ny, it, b, p, x, r, rr, pq);
    }
}
