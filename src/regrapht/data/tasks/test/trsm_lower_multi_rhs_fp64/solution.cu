// steps: tensor_core_mma, algorithmic_change, shared_memory_tiling, register_tiling, bank_conflict_avoidance, kernel_fusion, memory_coalescing
// Blocked forward substitution, one kernel per block of 64 rows (n/64 launches), a block of 128
// threads per 64 right-hand sides. For row block I, the update R = B_I - L[I, <I] X[<I] is a GEMM
// with K = 64 I on the FP64 tensor cores (DMMA, mma.sync m8n8k4 f64): four warps with 32 x 32
// accumulators, k-steps of 16 staged in shared memory (operand rows padded to 20 and 68 doubles so
// each half-warp's fragment reads hit distinct banks) while the next step is fetched into
// registers. The epilogue is fused: the 64 x 64 diagonal block of L and R go to shared memory
// (coalesced), and a thread per right-hand side solves the small triangle there before X_I is
// written back coalesced. The rows solved earlier come back from L2 for later blocks' GEMMs.
#define BR 64    // rows per block of the substitution
#define BC 64    // right-hand sides per thread block
#define BK 16
#define PA (BK + 4)
#define PB (BC + 4)
#define THREADS 128

__device__ __forceinline__ void dmma(double& c0, double& c1, double a, double b) {
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};\n"
                 : "+d"(c0), "+d"(c1)
                 : "d"(a), "d"(b));
}

__global__ void __launch_bounds__(THREADS) trsm_row_block(int n, int r, int i0, const double* __restrict__ L,
                                                         const double* __restrict__ B, double* __restrict__ X) {
    extern __shared__ __align__(16) double smem[];
    const int c0 = blockIdx.x * BC;
    const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31;
    const int wm = (warp >> 1) * 32, wn = (warp & 1) * 32;
    const int fr = lane >> 2, fc = lane & 3;
    const int rows = min(BR, n - i0);
    double acc[4][4][2];
#pragma unroll
    for (int mi = 0; mi < 4; ++mi)
#pragma unroll
        for (int ni = 0; ni < 4; ++ni) acc[mi][ni][0] = acc[mi][ni][1] = 0.0;

    if (i0 > 0) {  // acc = L[I, <I] X[<I, strip]
        double* As = smem;                 // [2][BR * PA]: L rows of block I, k-step columns
        double* Bs = smem + 2 * BR * PA;   // [2][BK * PB]: X rows of the k-step, strip columns
        double ra[BR * BK / THREADS], rb[BK * BC / THREADS];
        auto fetch = [&](int k0) {
#pragma unroll
            for (int u = 0; u < BR * BK / THREADS; ++u) {
                const int e = tid + u * THREADS, m = e / BK, k = k0 + e % BK;
                ra[u] = (m < rows && k < i0) ? L[(long long)(i0 + m) * n + k] : 0.0;
            }
#pragma unroll
            for (int u = 0; u < BK * BC / THREADS; ++u) {
                const int e = tid + u * THREADS, k = k0 + e / BC, c = c0 + e % BC;
                rb[u] = (k < i0 && c < r) ? X[(long long)k * r + c] : 0.0;
            }
        };
        const int steps = (i0 + BK - 1) / BK;
        fetch(0);
        for (int s = 0; s < steps; ++s) {
            double* as = As + (s & 1) * BR * PA;
            double* bs = Bs + (s & 1) * BK * PB;
#pragma unroll
            for (int u = 0; u < BR * BK / THREADS; ++u) {
                const int e = tid + u * THREADS;
                as[(e / BK) * PA + e % BK] = ra[u];
            }
#pragma unroll
            for (int u = 0; u < BK * BC / THREADS; ++u) {
                const int e = tid + u * THREADS;
                bs[(e / BC) * PB + e % BC] = rb[u];
            }
            __syncthreads();  // two buffers: the step before last is done with this one
            if (s + 1 < steps) fetch((s + 1) * BK);
#pragma unroll
            for (int kk = 0; kk < BK; kk += 4) {
                double a[4], b[4];
#pragma unroll
                for (int mi = 0; mi < 4; ++mi) a[mi] = as[(wm + mi * 8 + fr) * PA + kk + fc];
#pragma unroll
                for (int ni = 0; ni < 4; ++ni) b[ni] = bs[(kk + fc) * PB + wn + ni * 8 + fr];
#pragma unroll
                for (int mi = 0; mi < 4; ++mi)
#pragma unroll
                    for (int ni = 0; ni < 4; ++ni) dmma(acc[mi][ni][0], acc[mi][ni][1], a[mi], b[ni]);
            }
        }
        __syncthreads();  // the GEMM buffers become the epilogue's
    }
    double* Rs = smem;            // [BR][BC]: B_I, then R, then X_I
    double* Ld = smem + BR * BC;  // [BR][BR]: the diagonal block of L
    for (int e = tid; e < BR * BC; e += THREADS) {
        const int m = e / BC, c = c0 + e % BC;
        Rs[e] = (m < rows && c < r) ? B[(long long)(i0 + m) * r + c] : 0.0;
    }
    for (int e = tid; e < BR * BR; e += THREADS) {
        const int m = e / BR, k = e % BR;
        Ld[e] = (m < rows && k <= m) ? L[(long long)(i0 + m) * n + i0 + k] : 0.0;
    }
    __syncthreads();
    if (i0 > 0) {
#pragma unroll
        for (int mi = 0; mi < 4; ++mi)
#pragma unroll
            for (int ni = 0; ni < 4; ++ni)
#pragma unroll
                for (int h = 0; h < 2; ++h) Rs[(wm + mi * 8 + fr) * BC + wn + ni * 8 + fc * 2 + h] -= acc[mi][ni][h];
        __syncthreads();
    }
    if (tid < BC && c0 + tid < r) {  // the diagonal triangle, a right-hand side per thread
        for (int i = 0; i < rows; ++i) {
            double s = Rs[i * BC + tid];
            for (int j = 0; j < i; ++j) s -= Ld[i * BR + j] * Rs[j * BC + tid];
            Rs[i * BC + tid] = s / Ld[i * BR + i];
        }
    }
    __syncthreads();
    for (int e = tid; e < BR * BC; e += THREADS) {
        const int m = e / BC, c = c0 + e % BC;
        if (m < rows && c < r) X[(long long)(i0 + m) * r + c] = Rs[e];
    }
}

void trsm_lower_multi_rhs_fp64(int n, int r, const double* L, const double* B, double* X) {
    if (n <= 0 || r <= 0) return;
    const int gemm = (2 * BR * PA + 2 * BK * PB) * (int)sizeof(double);
    const int epilogue = (BR * BC + BR * BR) * (int)sizeof(double);
    const int shared = gemm > epilogue ? gemm : epilogue;  // 64 KB
    static bool opted = false;
    if (!opted) {
        cudaFuncSetAttribute(trsm_row_block, cudaFuncAttributeMaxDynamicSharedMemorySize, shared);
        opted = true;
    }
    const int blocks = (r + BC - 1) / BC;
    for (int i0 = 0; i0 < n; i0 += BR) trsm_row_block<<<blocks, THREADS, shared>>>(n, r, i0, L, B, X);
}
