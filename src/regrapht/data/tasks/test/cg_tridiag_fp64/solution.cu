// steps: algorithmic_change, kernel_fusion, shared_memory_tiling, warp_shuffle_reduction, block_tree_reduction
// One pass over the vectors an iteration instead of two: the Chronopoulos-Gear form of CG, which
// needs one global reduction an iteration. With w = A r, delta = r.w and gamma = r.r, p.q equals
// delta - beta gamma / alpha_old (A-conjugacy of the directions, orthogonality of the residuals),
// so gamma and delta of r_{k+1} together give alpha_{k+1}. Pass k, a block per 1024 consecutive
// rows plus two halo rows on each side, in shared memory:
//   p_k = r_k + beta p_{k-1} (rows -2..C+1), q_k = A p_k and r_{k+1} = r_k - alpha_k q_k (rows
//   -1..C), then w = A r_{k+1}, the partial gamma and delta (rows 0..C-1), reduced over the block
//   with shuffles and a tree, one double atomic each.
// q is recomputed from p instead of being stored, so a pass reads diag, off, r and p and writes r
// and p (64 bytes a row), and x is updated every other pass (x += alpha_{k-1} p_{k-1} +
// alpha_k p_k; p_{k-1} is at hand), where the previous two kernels an iteration moved 96 bytes a
// row and reached 32% of the floor. Every block computes alpha and beta itself from the sums, the
// same double arithmetic everywhere; alpha_k is also kept in scal for the next pass.
#define CG_THREADS 256
#define CG_ROWS 1024  // rows a block
#define CG_HALO 2

__device__ __forceinline__ double cg_block_sum(double v, double* warp_sums) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads();
    for (int s = CG_THREADS / 64; s > 0; s >>= 1) {  // tree over the 8 warp sums
        if (threadIdx.x < s) warp_sums[threadIdx.x] += warp_sums[threadIdx.x + s];
        __syncthreads();
    }
    return warp_sums[0];
}

// (A v)[i] from a shared window: v[l] holds row start + l - CG_HALO.
__device__ __forceinline__ double cg_apply(int n, int i, int l, const double* d, const double* o, const double* v) {
    double s = d[l] * v[l];
    if (i > 0) s += o[l - 1] * v[l - 1];
    if (i + 1 < n) s += o[l] * v[l + 1];
    return s;
}

// scal layout: gamma_k at scal[3k], delta_k at scal[3k + 1], alpha_k at scal[3k + 2].
// Pass k: r_cur = r_k (b when k = 0), p_old = p_{k-1} (unused when k = 0).
__global__ void __launch_bounds__(CG_THREADS)
    cg_pass(int n, int k, int iters, const double* __restrict__ diag, const double* __restrict__ off,
            const double* __restrict__ r_cur, const double* __restrict__ p_old, double* __restrict__ r_next,
            double* __restrict__ p_new, double* __restrict__ x, double* __restrict__ scal) {
    constexpr int W = CG_ROWS + 2 * CG_HALO;
    __shared__ double sd[W], so[W], sr[W], sp[W], sr1[W];
    __shared__ double warp_sums[CG_THREADS / 32];
    const double gamma = scal[3 * k], delta = scal[3 * k + 1];
    double alpha, beta = 0.0, alpha_prev = 0.0;
    if (k == 0) {
        alpha = gamma / delta;
    } else {
        alpha_prev = scal[3 * (k - 1) + 2];
        beta = gamma / scal[3 * (k - 1)];
        alpha = gamma / (delta - beta * gamma / alpha_prev);
    }
    if (blockIdx.x == 0 && threadIdx.x == 0) scal[3 * k + 2] = alpha;
    const long long start = (long long)blockIdx.x * CG_ROWS;
    for (int l = threadIdx.x; l < W; l += CG_THREADS) {
        const long long i = start + l - CG_HALO;
        if (i >= 0 && i < n) {
            const double ri = r_cur[i];
            sd[l] = diag[i];
            so[l] = off[i];  // off[n - 1] is never used: cg_apply tests i + 1 < n
            sr[l] = ri;
            sp[l] = k == 0 ? ri : fma(beta, p_old[i], ri);
        } else {
            sd[l] = 1.0, so[l] = 0.0, sr[l] = 0.0, sp[l] = 0.0;
        }
    }
    __syncthreads();
    for (int l = threadIdx.x + 1; l < W - 1; l += CG_THREADS) {  // r_{k+1} on rows -1..C
        const long long i = start + l - CG_HALO;
        sr1[l] = (i >= 0 && i < n) ? sr[l] - alpha * cg_apply(n, (int)i, l, sd, so, sp) : 0.0;
    }
    __syncthreads();
    const bool x_now = (k & 1) || k == iters - 1;  // x takes alpha p every other pass and at the end
    double g = 0.0, dl = 0.0;
    for (int l = threadIdx.x + CG_HALO; l < CG_HALO + CG_ROWS; l += CG_THREADS) {
        const long long i = start + l - CG_HALO;
        if (i >= n) break;
        const double r1 = sr1[l];
        const double w = cg_apply(n, (int)i, l, sd, so, sr1);
        g += r1 * r1;
        dl += r1 * w;
        if (k + 1 < iters) {
            r_next[i] = r1;
            p_new[i] = sp[l];
        }
        if (x_now) {
            double xi = k >= 2 ? x[i] : 0.0;
            if (k & 1) xi = fma(alpha_prev, p_old[i], xi);  // the pending update of pass k - 1
            x[i] = fma(alpha, sp[l], xi);
        }
    }
    if (k + 1 < iters) {
        g = cg_block_sum(g, warp_sums);
        __syncthreads();
        dl = cg_block_sum(dl, warp_sums);
        if (threadIdx.x == 0) {
            atomicAdd(scal + 3 * (k + 1), g);
            atomicAdd(scal + 3 * (k + 1) + 1, dl);
        }
    }
}

// gamma_0 = b.b and delta_0 = b.(A b).
__global__ void __launch_bounds__(CG_THREADS)
    cg_start(int n, const double* __restrict__ diag, const double* __restrict__ off, const double* __restrict__ b,
             double* __restrict__ scal) {
    constexpr int W = CG_ROWS + 2;
    __shared__ double sd[W], so[W], sb[W];
    __shared__ double warp_sums[CG_THREADS / 32];
    const long long start = (long long)blockIdx.x * CG_ROWS;
    for (int l = threadIdx.x; l < W; l += CG_THREADS) {
        const long long i = start + l - 1;
        const bool in = i >= 0 && i < n;
        sd[l] = in ? diag[i] : 1.0;
        so[l] = in ? off[i] : 0.0;
        sb[l] = in ? b[i] : 0.0;
    }
    __syncthreads();
    double g = 0.0, dl = 0.0;
    for (int l = threadIdx.x + 1; l < 1 + CG_ROWS; l += CG_THREADS) {
        const long long i = start + l - 1;
        if (i >= n) break;
        const double bi = sb[l];
        g += bi * bi;
        dl += bi * cg_apply(n, (int)i, l, sd, so, sb);
    }
    g = cg_block_sum(g, warp_sums);
    __syncthreads();
    dl = cg_block_sum(dl, warp_sums);
    if (threadIdx.x == 0) {
        atomicAdd(scal, g);
        atomicAdd(scal + 1, dl);
    }
}

void cg_tridiag_fp64(int n, int iters, const double* diag, const double* off, const double* b, double* x) {
    if (n <= 0) return;
    if (iters <= 0) {
        cudaMemsetAsync(x, 0, (size_t)n * sizeof(double));
        return;
    }
    static double* work = nullptr;
    static long long capacity = 0;
    const long long need = 4LL * n + 3LL * (iters + 1);
    if (need > capacity) {
        if (work) cudaFree(work);
        cudaMalloc(&work, need * sizeof(double));
        capacity = need;
    }
    double* r[2] = {work, work + n};
    double* p[2] = {work + 2LL * n, work + 3LL * n};
    double* scal = work + 4LL * n;
    cudaMemsetAsync(scal, 0, 3 * (iters + 1) * sizeof(double));
    const unsigned blocks = (unsigned)((n + CG_ROWS - 1) / CG_ROWS);
    cg_start<<<blocks, CG_THREADS>>>(n, diag, off, b, scal);
    for (int k = 0; k < iters; ++k) {
        // r_k: b for k = 0, then r[k & 1]; p_{k-1} in p[(k - 1) & 1]; pass k writes r[(k + 1) & 1], p[k & 1]
        const double* r_cur = k == 0 ? b : r[k & 1];
        const double* p_old = k == 0 ? p[1] : p[(k - 1) & 1];
        cg_pass<<<blocks, CG_THREADS>>>(n, k, iters, diag, off, r_cur, p_old, r[(k + 1) & 1], p[k & 1], x, scal);
    }
}
