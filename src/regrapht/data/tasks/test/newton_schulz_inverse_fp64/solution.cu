// steps: tensor_core_mma, shared_memory_tiling, register_tiling, bank_conflict_avoidance, kernel_fusion, memory_coalescing, algorithmic_change
// Every iterate is a polynomial in A A^T: X_k = X_0 P_k with X_0 = A^T / s, and S_k = A X_k =
// (A A^T / s) P_k, where P_k and S_k are symmetric and commute. So X_{k+1} = X_k (2I - S_k) becomes
// P_{k+1} = P_k (2I - S_k) and S_{k+1} = S_k (2I - S_k), both symmetric products, and X = X_0 P_iters
// is one product at the end. A symmetric product forms only the 32 x 32 tiles on and above the
// diagonal (136 of 256 at n = 512) and stores each off-diagonal tile twice, the second copy
// transposed: at n = 512 and 10 iterations, 12 launches of 2,840 tile products in all, where two
// full products per iteration are 20 launches of 5,120. An iteration is one launch: its two products share the right operand 2I - S_k, made
// as it is loaded, and blockIdx.y picks the left one. Rounding: the same fp64 sums in another
// order (X differs from the literal iteration by ~3e-16 at every test size, measured in NumPy; the
// tolerance is 1e-13 absolute).
// The products run on the FP64 tensor cores (DMMA, mma.sync m8n8k4 f64): a block per 32 x 32 tile,
// k-steps of 32 staged in shared memory while the next step's elements are fetched into registers,
// eight warps: each of four 16 x 16 quarters of the tile has two, one per half of every k-step
// (twice the independent DMMA chains per SM of one warp per quarter, each half as long), and the
// halves are added through shared memory at the end. Registers are capped for three blocks per SM
// (80 a thread), so an iteration's 272 blocks at n = 512 are all resident at once (two would leave
// 8 blocks for a second wave). Operand rows are padded to 36 doubles, so the A fragments
// (row = lane / 4, column = lane % 4) and the B fragments (row = lane % 4, column = lane / 4) of a
// half-warp hit 16 distinct banks. The two norms come from one kernel (coalesced column sums, a
// warp per row sum), and the scaled transpose goes through a shared-memory tile.
#define BT 32
#define BK 32
#define PAD 4
#define PITCH (BK + PAD)  // = BT + PAD: both operand tiles share the pitch
#define GT 256  // eight warps: four 16 x 16 quarters of the tile, each over two halves of every k-step
#define LOADS (BT * BK / GT)

__device__ __forceinline__ void dmma(double& c0, double& c1, double a, double b) {
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};\n"
                 : "+d"(c0), "+d"(c1)
                 : "d"(a), "d"(b));
}

enum Mode { FULL = 0, START = 1, STEP = 2 };

struct Operands {
    const double* left[2];  // FULL, START: left[0]; STEP: left[blockIdx.y]
    const double* right;    // STEP: S_k, taken as 2I - S_k
    double* out[2];         // FULL: out[0] = P Q; START: out[0] = S_0, out[1] = P_1 = 2I - S_0; STEP: out[blockIdx.y]
};

// The tile (row, col) on or above the diagonal of a T x T tile grid that index t names, row-major
__device__ __forceinline__ void upper_tile(int t, int T, int& row, int& col) {
    row = 0;
    while (t >= T - row) t -= T - row++;
    col = row + t;
}

// One 32 x 32 tile of a product of n x n row-major matrices. FULL: every tile (a 2-D grid).
// START and STEP: symmetric results, blockIdx.x over the upper tiles, each off-diagonal one stored
// at (i, j) and at (j, i).
template <int MODE>
__global__ void __launch_bounds__(GT, 3) gemm_dmma(int n, Operands ops) {
    __shared__ __align__(16) double Ps[2][BT][BK + PAD];  // Ps[m][k]
    __shared__ __align__(16) double Qs[2][BK][BT + PAD];  // Qs[k][j]
    int ti = blockIdx.y, tj = blockIdx.x;
    if (MODE != FULL) upper_tile(blockIdx.x, (n + BT - 1) / BT, ti, tj);
    const int z = MODE == STEP ? blockIdx.y : 0;
    const double* __restrict__ P = z ? ops.left[1] : ops.left[0];  // no run-time index into the parameter array
    const double* __restrict__ Q = ops.right;
    const int i0 = ti * BT, j0 = tj * BT;
    const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31;
    const int wm = ((warp >> 1) & 1) * 16, wn = (warp & 1) * 16, kh = (warp >> 2) * (BK / 2);
    const int fr = lane >> 2, fc = lane & 3;
    double rp[LOADS], rq[LOADS];
    auto fetch = [&](int k0) {
#pragma unroll
        for (int u = 0; u < LOADS; ++u) {
            const int e = tid + u * GT, r = e / BK, c = e % BK;  // consecutive threads: consecutive columns
            rp[u] = (i0 + r < n && k0 + c < n) ? P[(long long)(i0 + r) * n + k0 + c] : 0.0;
            const bool in = k0 + r < n && j0 + c < n;
            const double q = in ? Q[(long long)(k0 + r) * n + j0 + c] : 0.0;
            rq[u] = MODE == STEP && in ? (k0 + r == j0 + c ? 2.0 : 0.0) - q : q;
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
        for (int kk = kh; kk < kh + BK / 2; kk += 4) {
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
    // the second k-halves' sums join the first through shared memory (the tiles are free once all
    // warps are past the loop); then warps 0-3 alone store
    __syncthreads();
    double* halves = &Ps[0][0][0];  // 32 x 33: 1056 of the 2304 doubles
#pragma unroll
    for (int mi = 0; mi < 2; ++mi)
#pragma unroll
        for (int ni = 0; ni < 2; ++ni)
#pragma unroll
            for (int h = 0; h < 2; ++h)
                if (kh != 0) halves[(wm + mi * 8 + fr) * (BT + 1) + wn + ni * 8 + fc * 2 + h] = acc[mi][ni][h];
    __syncthreads();
    if (kh != 0) return;
#pragma unroll
    for (int mi = 0; mi < 2; ++mi)
#pragma unroll
        for (int ni = 0; ni < 2; ++ni)
#pragma unroll
            for (int h = 0; h < 2; ++h) acc[mi][ni][h] += halves[(wm + mi * 8 + fr) * (BT + 1) + wn + ni * 8 + fc * 2 + h];
    const bool mirror = MODE != FULL && ti != tj;
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
                    double* C = z ? ops.out[1] : ops.out[0];
                    C[(long long)i * n + j] = v;
                    if (mirror) C[(long long)j * n + i] = v;
                    if (MODE == START) {
                        const double t = (i == j ? 2.0 : 0.0) - v;
                        ops.out[1][(long long)i * n + j] = t;
                        if (mirror) ops.out[1][(long long)j * n + i] = t;
                    }
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
    if (5 * nn + 2 > capacity) {
        if (work) cudaFree(work);
        cudaMalloc(&work, (5 * nn + 2) * sizeof(double));
        capacity = 5 * nn + 2;
    }
    double* X0 = work;
    double* S[2] = {work + nn, work + 2 * nn};
    double* P[2] = {work + 3 * nn, work + 4 * nn};
    unsigned long long* norms = reinterpret_cast<unsigned long long*>(work + 5 * nn);
    cudaMemsetAsync(norms, 0, 2 * sizeof(unsigned long long));
    const int col_blocks = (n + 255) / 256, row_blocks = (n + 7) / 8;
    abs_sum_norms<<<col_blocks + row_blocks, 256>>>(n, col_blocks, A, norms);
    const int T = (n + BT - 1) / BT, upper = T * (T + 1) / 2;
    scaled_transpose_tiled<<<dim3(T, T), dim3(32, 8)>>>(n, A, norms, iters > 0 ? X0 : X);
    if (iters <= 0) return;
    // S_0 = A X_0 and P_1 = 2I - S_0
    gemm_dmma<START><<<upper, GT>>>(n, Operands{{A, nullptr}, X0, {S[0], P[1]}});
    // S_1 = S_0 (2I - S_0), when an iteration still needs it
    if (iters > 1) gemm_dmma<STEP><<<dim3(upper, 1), GT>>>(n, Operands{{S[0], nullptr}, S[0], {S[1], nullptr}});
    // S_k and P_k sit in S[k & 1] and P[k & 1]
    for (int k = 1; k < iters; ++k) {
        const int cur = k & 1, nxt = cur ^ 1;
        if (k + 1 < iters)  // P_{k+1} and S_{k+1}
            gemm_dmma<STEP><<<dim3(upper, 2), GT>>>(n, Operands{{P[cur], S[cur]}, S[cur], {P[nxt], S[nxt]}});
        else  // the last iteration needs P only
            gemm_dmma<STEP><<<dim3(upper, 1), GT>>>(n, Operands{{P[cur], nullptr}, S[cur], {P[nxt], nullptr}});
    }
    gemm_dmma<FULL><<<dim3(T, T), GT>>>(n, Operands{{X0, nullptr}, P[iters & 1], {X, nullptr}});
}
