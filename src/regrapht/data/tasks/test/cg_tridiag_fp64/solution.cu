// steps: kernel_fusion, warp_shuffle_reduction, grid_stride_loop
// Two kernels an iteration instead of five: (1) p = r + beta p fused into the matrix-vector product
// and the p.q reduction (a row's neighbours recompute their p from r and the old p, with one fma so
// every thread gets the same bits as the row's owner, and p ping-pongs between two buffers); (2) the
// x and r updates fused with the r.r reduction. Reductions go warp shuffles -> shared memory -> one
// atomic per block, over a grid-stride loop sized to the GPU, so few blocks add to each scalar.
// scal[2*it] is (r.r) before iteration it, scal[2*it + 1] is (p.q) in iteration it.
#include <algorithm>

#define CG_THREADS 256

__device__ __forceinline__ double cg_block_sum(double v) {
    __shared__ double warp_sums[CG_THREADS / 32];
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads();
    double total = 0.0;
    if (warp == 0) {
        total = lane < CG_THREADS / 32 ? warp_sums[lane] : 0.0;
        for (int o = 16; o > 0; o >>= 1) total += __shfl_down_sync(0xffffffffu, total, o);
    }
    return total;  // meaningful in thread 0
}

__global__ void __launch_bounds__(CG_THREADS) cg_init_fused(int n, const double* __restrict__ b, double* x, double* r,
                                                           double* p, double* rr0) {
    double acc = 0.0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        const double bi = b[i];
        x[i] = 0.0;
        r[i] = bi;
        p[i] = bi;
        acc += bi * bi;
    }
    acc = cg_block_sum(acc);
    if (threadIdx.x == 0) atomicAdd(rr0, acc);
}

__device__ __forceinline__ double cg_direction(int j, bool first, double beta, const double* r, const double* p_old) {
    return first ? p_old[j] : __fma_rn(beta, p_old[j], r[j]);
}

__global__ void __launch_bounds__(CG_THREADS) cg_direction_matvec(int n, bool first, const double* __restrict__ scal_it,
                                                                 const double* __restrict__ diag,
                                                                 const double* __restrict__ off,
                                                                 const double* __restrict__ r,
                                                                 const double* __restrict__ p_old, double* p_new,
                                                                 double* q, double* pq) {
    // beta of the previous iteration: (r.r) now over (r.r) before it
    const double beta = first ? 0.0 : scal_it[0] / scal_it[-2];
    double acc = 0.0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        const double pi = cg_direction(i, first, beta, r, p_old);
        double v = diag[i] * pi;
        if (i > 0) v += off[i - 1] * cg_direction(i - 1, first, beta, r, p_old);
        if (i + 1 < n) v += off[i] * cg_direction(i + 1, first, beta, r, p_old);
        if (!first) p_new[i] = pi;
        q[i] = v;
        acc += pi * v;
    }
    acc = cg_block_sum(acc);
    if (threadIdx.x == 0) atomicAdd(pq, acc);
}

__global__ void __launch_bounds__(CG_THREADS) cg_update_fused(int n, const double* __restrict__ scal_it,
                                                             const double* __restrict__ p,
                                                             const double* __restrict__ q, double* x, double* r,
                                                             double* rr_next) {
    const double alpha = scal_it[0] / scal_it[1];
    double acc = 0.0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        x[i] += alpha * p[i];
        const double ri = r[i] - alpha * q[i];
        r[i] = ri;
        acc += ri * ri;
    }
    acc = cg_block_sum(acc);
    if (threadIdx.x == 0) atomicAdd(rr_next, acc);
}

void cg_tridiag_fp64(int n, int iters, const double* diag, const double* off, const double* b, double* x) {
    if (n <= 0) return;
    static double* work = nullptr;
    static long long capacity = 0;
    static int max_blocks = 0;
    if (max_blocks == 0) {
        int device = 0, sms = 0;
        cudaGetDevice(&device);
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
        max_blocks = 8 * (sms > 0 ? sms : 132);  // 8 resident blocks of 256 threads per SM
    }
    const long long need = 4LL * n + 2LL * (iters + 1);
    if (need > capacity) {
        if (work) cudaFree(work);
        cudaMalloc(&work, need * sizeof(double));
        capacity = need;
    }
    double* r = work;
    double* p[2] = {work + n, work + 2LL * n};
    double* q = work + 3LL * n;
    double* scal = work + 4LL * n;
    cudaMemsetAsync(scal, 0, 2 * (iters + 1) * sizeof(double));
    const int blocks = (int)std::min<long long>((n + CG_THREADS - 1) / CG_THREADS, max_blocks);
    cg_init_fused<<<blocks, CG_THREADS>>>(n, b, x, r, p[0], scal);
    for (int it = 0; it < iters; ++it) {
        double* s = scal + 2 * it;
        const bool first = it == 0;
        // p of iteration it lives in p[it & 1]; it is built from p[(it - 1) & 1] (the first one is b)
        double* p_cur = p[it & 1];
        const double* p_old = first ? p[0] : p[(it - 1) & 1];
        cg_direction_matvec<<<blocks, CG_THREADS>>>(n, first, s, diag, off, r, p_old, p_cur, q, s + 1);
        cg_update_fused<<<blocks, CG_THREADS>>>(n, s, p_cur, q, x, r, s + 2);
    }
}
