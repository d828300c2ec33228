// steps: work_decomposition, memory_coalescing, register_tiling, loop_unrolling
// A warp per system, lane i owning row i. The whole factor comes into registers first: column j is
// n consecutive doubles (column-major), so lane i's read of element (i, j) makes each column one
// coalesced load, and all 32 columns are in flight before the solve starts. The interchanges and
// both substitutions then run on registers, the current unknown broadcast by a shuffle, in the
// serial order of operations.
#define GETRS_WARPS 4
#define MAXN 32

__global__ void __launch_bounds__(GETRS_WARPS * 32) getrs_warp_per_system(int batch, int n,
                                                                         const double* __restrict__ LU,
                                                                         const int* __restrict__ piv,
                                                                         const double* __restrict__ b,
                                                                         double* __restrict__ x) {
    const int k = blockIdx.x * GETRS_WARPS + (threadIdx.x >> 5);
    const int lane = threadIdx.x & 31;
    if (k >= batch) return;  // whole warps leave together
    const double* f = LU + (long long)k * n * n;
    const bool mine = lane < n;
    double col[MAXN];
#pragma unroll
    for (int j = 0; j < MAXN; ++j) col[j] = (j < n && mine) ? f[j * n + lane] : 0.0;
    const int q_mine = mine ? piv[(long long)k * n + lane] - 1 : 0;
    double v = mine ? b[(long long)k * n + lane] : 0.0;
    for (int r = 0; r < n; ++r) {
        const int q = __shfl_sync(0xffffffffu, q_mine, r);
        const double vr = __shfl_sync(0xffffffffu, v, r);
        const double vq = __shfl_sync(0xffffffffu, v, q);
        if (lane == r) v = vq;
        else if (lane == q) v = vr;
    }
#pragma unroll
    for (int j = 0; j < MAXN; ++j) {
        if (j < n) {
            const double vj = __shfl_sync(0xffffffffu, v, j);
            if (lane > j) v -= col[j] * vj;
        }
    }
#pragma unroll
    for (int j = MAXN - 1; j >= 0; --j) {
        if (j < n) {
            if (lane == j) v /= col[j];
            const double vj = __shfl_sync(0xffffffffu, v, j);
            if (lane < j) v -= col[j] * vj;
        }
    }
    if (mine) x[(long long)k * n + lane] = v;
}

void batched_lu_solve_fp64(int batch, int n, const double* LU, const int* piv, const double* b, double* x) {
    if (batch <= 0 || n <= 0) return;
    getrs_warp_per_system<<<(batch + GETRS_WARPS - 1) / GETRS_WARPS, GETRS_WARPS * 32>>>(batch, n, LU, piv, b, x);
}
