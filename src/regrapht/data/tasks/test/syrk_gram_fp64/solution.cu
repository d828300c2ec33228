// steps: tensor_core_mma, shared_memory_tiling, register_tiling, bank_conflict_avoidance, work_decomposition, memory_coalescing
// FP64 tensor cores (DMMA, mma.sync m8n8k4 f64) over the lower triangle only: a block per 64 x 64
// tile (I, J) with J <= I, enumerated row by row. Each k-step of 16 stages the I rows and J rows of A
// into shared memory (consecutive threads on consecutive elements of a row) while the next step's
// elements are fetched into registers. Four warps each hold a 32 x 32 accumulator tile (16 DMMA
// tiles of 8 x 8); the A operand of a DMMA is A[i][p] and its B operand A[j][p], both read with
// row = lane / 4, column = lane % 4, so the shared rows are padded to 20 doubles (a half-warp's
// 16 reads then fall on distinct banks). Each element of the triangle is written twice, as C[i][j]
// and C[j][i]; a diagonal tile writes only its own lower half, so no address is written twice.
#define BM 64
#define BK 16
#define PAD 4
#define PITCH (BK + PAD)
#define THREADS 128
#define LOADS (BM * BK / THREADS)  // 8 elements of each operand per thread and k-step

__device__ __forceinline__ void dmma(double& c0, double& c1, double a, double b) {
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};\n"
                 : "+d"(c0), "+d"(c1)
                 : "d"(a), "d"(b));
}

__global__ void __launch_bounds__(THREADS) gram_dmma(int n, int k, const double* __restrict__ A, double* __restrict__ C) {
    __shared__ __align__(16) double As[2][BM][BK + PAD];
    __shared__ __align__(16) double Bs[2][BM][BK + PAD];
    const long long t = blockIdx.x;
    int bi = (int)((sqrt(8.0 * (double)t + 1.0) - 1.0) * 0.5);
    while ((long long)(bi + 1) * (bi + 2) / 2 <= t) ++bi;
    while ((long long)bi * (bi + 1) / 2 > t) --bi;
    const int bj = (int)(t - (long long)bi * (bi + 1) / 2);
    const int i0 = bi * BM, j0 = bj * BM;
    const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31;
    const int wm = (warp >> 1) * 32, wn = (warp & 1) * 32;
    const int fr = lane >> 2, fc = lane & 3;  // fragment row and column of this lane

    double ra[LOADS], rb[LOADS];
    auto fetch = [&](int p0) {
#pragma unroll
        for (int u = 0; u < LOADS; ++u) {
            const int e = tid + u * THREADS, r = e / BK, c = e % BK, p = p0 + c;
            ra[u] = (i0 + r < n && p < k) ? A[(long long)(i0 + r) * k + p] : 0.0;
            rb[u] = (j0 + r < n && p < k) ? A[(long long)(j0 + r) * k + p] : 0.0;
        }
    };
    double acc[4][4][2];
#pragma unroll
    for (int mi = 0; mi < 4; ++mi)
#pragma unroll
        for (int ni = 0; ni < 4; ++ni) acc[mi][ni][0] = acc[mi][ni][1] = 0.0;

    const int steps = (k + BK - 1) / BK;
    fetch(0);
    for (int s = 0; s < steps; ++s) {
        const int buf = s & 1;
#pragma unroll
        for (int u = 0; u < LOADS; ++u) {
            const int e = tid + u * THREADS, r = e / BK, c = e % BK;
            As[buf][r][c] = ra[u];
            Bs[buf][r][c] = rb[u];
        }
        __syncthreads();  // two buffers: the step before last is done with this one
        if (s + 1 < steps) fetch((s + 1) * BK);
        const double* as = &As[buf][0][0];
        const double* bs = &Bs[buf][0][0];
#pragma unroll
        for (int kk = 0; kk < BK; kk += 4) {
            double a[4], b[4];
#pragma unroll
            for (int mi = 0; mi < 4; ++mi) a[mi] = as[(wm + mi * 8 + fr) * PITCH + kk + fc];
#pragma unroll
            for (int ni = 0; ni < 4; ++ni) b[ni] = bs[(wn + ni * 8 + fr) * PITCH + kk + fc];
#pragma unroll
            for (int mi = 0; mi < 4; ++mi)
#pragma unroll
                for (int ni = 0; ni < 4; ++ni) dmma(acc[mi][ni][0], acc[mi][ni][1], a[mi], b[ni]);
        }
    }
    const bool diagonal = bi == bj;
#pragma unroll
    for (int mi = 0; mi < 4; ++mi) {
        const int i = i0 + wm + mi * 8 + fr;
#pragma unroll
        for (int ni = 0; ni < 4; ++ni) {
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const int j = j0 + wn + ni * 8 + fc * 2 + h;
                if (i < n && j < n && (!diagonal || j <= i)) {
                    C[(long long)i * n + j] = acc[mi][ni][h];
                    C[(long long)j * n + i] = acc[mi][ni][h];
                }
            }
        }
    }
}

void syrk_gram_fp64(int n, int k, const double* A, double* C) {
    if (n <= 0) return;
    const long long tiles = (n + BM - 1) / BM;
    gram_dmma<<<(unsigned)(tiles * (tiles + 1) / 2), THREADS>>>(n, k, A, C);
}
