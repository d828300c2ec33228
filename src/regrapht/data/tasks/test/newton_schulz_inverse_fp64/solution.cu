// steps: tensor_core_mma, shared_memory_tiling, register_tiling, bank_conflict_avoidance, kernel_fusion, memory_coalescing
// Both products of an iteration run on the FP64 tensor cores (DMMA, mma.sync m8n8k4 f64): a block
// per 32 x 32 tile of the result (256 blocks at n = 512, every SM busy), four warps with 16 x 16
// each, k-steps of 32 staged in shared memory while the next step's elements are fetched into
// registers. Operand rows are padded to 36 doubles, so the A fragments (row = lane / 4,
// column = lane % 4) and the B fragments (row = lane % 4, column = lane / 4) of a half-warp hit 16
// distinct banks. 2I - A X is fused into the first product's epilogue, the iterates ping-pong
// between buffers (the last lands in X), the two norms come from one kernel (coalesced column sums,
// a warp per row sum), and the scaled transpose goes through a shared-memory tile.
#define BT 32
#define BK 32
#define PAD 4
#define PITCH (BK + PAD)  // = BT + PAD: both operand tiles share the pitch
#define GT 128
#define LOADS (BT * BK / GT)

__device__ __forceinline__ void dmma(double& c0, double& c1, double a, double b) {
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};\n"
                 : "+d"(c0), "+d"(c1)
                 : "d"(a), "d"(b));
}

// C = P Q, or C = 2I - P Q when TWO_MINUS; all n x n row-major
template <bool TWO_MINUS>
__global__ void __launch_bounds__(GT) gemm_dmma(int n, const double* __restrict__ P, const double* __restrict__ Q,
                                               double* __restrict__ C) {
    __shared__ __align__(16) double Ps[2][BT][BK + PAD];  // Ps[m][k]
    __shared__ __align__(16) double Qs[2][BK][BT + PAD];  // Qs[k][j]
    const int i0 = blockIdx.y * BT, j0 = blockIdx.x * BT;
    const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31;
    const int wm = (warp >> 1) * 16, wn = (warp & 1) * 16;
    const int fr = lane >> 2, fc = lane & 3;
    double rp[LOADS], rq[LOADS];
    auto fetch = [&](int k0) {
#pragma unroll
        for (int u = 0; u < LOADS; ++u) {
            const int e = tid + u * GT, r = e / BK, c = e % BK;  // consecutive threads: consecutive columns
            rp[u] = (i0 + r < n && k0 + c < n) ? P[(long long)(i0 + r) * n + k0 + c] : 0.0;
            rq[u] = (k0 + r < n && j0 + c < n) ? Q[(long long)(k0 + r) * n + j0 + c] : 0.0;
        }
    };
    double acc[2][2][2] = {};
    const int steps = (n + BK - 1) / BK;
    fetch(0);
    for (int s = 0; s < steps; ++s) {
        const int buf = s & 1;
#pragma unroll
        for (int u = 0; u < LOADS; ++u) {
            const int e = tid + u * GT, r = e / BK, c = e % BK;
            Ps[buf][r][c] = rp[u];
            Qs[buf][r][c] = rq[u];
        }
        __syncthreads();  // two buffers: the step before last is done with this one
        if (s + 1 < steps) fetch((s + 1) * BK);
        const double* ps = &Ps[buf][0][0];
        const double* qs = &Qs[buf][0][0];
#pragma unroll
        for (int kk = 0; kk < BK; kk += 4) {
            double a[2], b[2];
#pragma unroll
            for (int mi = 0; mi < 2; ++mi) a[mi] = ps[(wm + mi * 8 + fr) * PITCH + kk + fc];
#pragma unroll
            for (int ni = 0; ni < 2; ++ni) b[ni] = qs[(kk + fc) * PITCH + wn + ni * 8 + fr];
#pragma unroll
            for (int mi = 0; mi < 2; ++mi)
#pragma unroll
                for (int ni = 0; ni < 2; ++ni) dmma(acc[mi][ni][0], acc[mi][ni][1], a[mi], b[ni]);
        }
    }
#pragma unroll
    for (int mi = 0; mi < 2; ++mi) {
        const int i = i0 + wm + mi * 8 + fr;
#pragma unroll
        for (int ni = 0; ni < 2; ++ni) {
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const int j = j0 + wn + ni * 8 + fc * 2 + h;
                if (i < n && j < n) {
                    const double v = acc[mi][ni][h];
                    C[(long long)i * n + j] = TWO_MINUS ? (i == j ? 2.0 : 0.0) - v : v;
                }
            }
        }
    }
}

// blocks [0, col_blocks): a thread per column; the rest: a warp per row. Maxima by atomicMax on the
// bit patterns, which order non-negative doubles.
__global__ void abs_sum_norms(int n, int col_blocks, const double* __restrict__ A, unsigned long long* norms) {
    if ((int)blockIdx.x < col_blocks) {
        const int j = blockIdx.x * blockDim.x + threadIdx.x;
        if (j >= n) return;
        double s = 0.0;
        for (int i = 0; i < n; ++i) s += fabs(A[(long long)i * n + j]);
        atomicMax(&norms[0], (unsigned long long)__double_as_longlong(s));
        return;
    }
    const int i = (blockIdx.x - col_blocks) * (blockDim.x / 32) + (threadIdx.x >> 5), lane = threadIdx.x & 31;
    if (i >= n) return;
    double s = 0.0;
    for (int j = lane; j < n; j += 32) s += fabs(A[(long long)i * n + j]);
    for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
    if (lane == 0) atomicMax(&norms[1], (unsigned long long)__double_as_longlong(s));
}

__global__ void scaled_transpose_tiled(int n, const double* __restrict__ A, const unsigned long long* norms,
                                       double* __restrict__ X) {
    __shared__ double tile[32][33];
    const double scale = __longlong_as_double((long long)norms[0]) * __longlong_as_double((long long)norms[1]);
    const int r0 = blockIdx.y * 32, c0 = blockIdx.x * 32;  // source tile of A
    for (int dy = threadIdx.y; dy < 32; dy += 8) {
        if (r0 + dy < n && c0 + threadIdx.x < n) tile[dy][threadIdx.x] = A[(long long)(r0 + dy) * n + c0 + threadIdx.x];
    }
    __syncthreads();
    for (int dy = threadIdx.y; dy < 32; dy += 8) {
        const int i = c0 + dy, j = r0 + threadIdx.x;  // X[i][j] = A[j][i] / scale
        if (i < n && j < n) X[(long long)i * n + j] = tile[threadIdx.x][dy] / scale;
    }
}

void newton_schulz_inverse_fp64(int n, int iters, const double* A, double* X) {
    if (n <= 0) return;
    static double* work = nullptr;
    static long long capacity = 0;
    const long long nn = (long long)n * n;
    if (3 * nn + 2 > capacity) {
        if (work) cudaFree(work);
        cudaMalloc(&work, (3 * nn + 2) * sizeof(double));
        capacity = 3 * nn + 2;
    }
    double* T = work;
    double* Y[2] = {work + nn, work + 2 * nn};
    unsigned long long* norms = reinterpret_cast<unsigned long long*>(work + 3 * nn);
    cudaMemsetAsync(norms, 0, 2 * sizeof(unsigned long long));
    const int col_blocks = (n + 255) / 256, row_blocks = (n + 7) / 8;
    abs_sum_norms<<<col_blocks + row_blocks, 256>>>(n, col_blocks, A, norms);
    const dim3 tiles((n + 31) / 32, (n + 31) / 32);
    double* cur = iters > 0 ? Y[0] : X;
    scaled_transpose_tiled<<<tiles, dim3(32, 8)>>>(n, A, norms, cur);
    const dim3 grid((n + BT - 1) / BT, (n + BT - 1) / BT);
    for (int it = 0; it < iters; ++it) {
        double* next = it == iters - 1 ? X : Y[(it + 1) & 1];
        gemm_dmma<true><<<grid, GT>>>(n, A, cur, T);
        gemm_dmma<false><<<grid, GT>>>(n, cur, T, next);
        cur = next;
    }
}
