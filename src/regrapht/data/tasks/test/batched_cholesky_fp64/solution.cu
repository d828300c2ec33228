// steps: work_decomposition, memory_coalescing, shared_memory_tiling, bank_conflict_avoidance, register_tiling
// A warp per matrix (n <= 32), lane i owning row i of the factor in registers (32 doubles; the
// column loops are unrolled so the row never leaves them). The lower triangle arrives with
// coalesced loads (lanes on consecutive elements of a row, the upper triangle never read), all of a
// lane's loads issued before the first is used, and goes through a shared tile (rows padded to 33
// doubles: the row-per-lane read-back hits distinct banks) into the rows. Right-looking: for column
// j every lane publishes its a[i][j] in a 32-double column buffer (one store for the warp), all
// lanes take the pivot from it and scale their entry, then update columns j+1..i with broadcast
// 16-byte reads of the buffer. The port moved every operand through global memory, and a
// shared-memory factorization a read-modify-write of the tile per update; here only one store per
// column and the broadcasts touch shared memory. L goes back through the tile with coalesced
// stores, zeros above the diagonal.
#define CHOL_WARPS 4
#define CHOL_MAX 32
#define CHOL_PITCH 33

template <int NN>  // NN = 32: the bench size with constant indexing; 0: any n <= 32
__global__ void __launch_bounds__(CHOL_WARPS * 32) cholesky_rows_in_registers(int batch, int n_arg,
                                                                             const double* __restrict__ A,
                                                                             double* __restrict__ L) {
    __shared__ double tile[CHOL_WARPS][CHOL_MAX * CHOL_PITCH];
    __shared__ __align__(16) double column[CHOL_WARPS][2][CHOL_MAX];
    const int n = NN ? NN : n_arg;
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int k = blockIdx.x * CHOL_WARPS + warp;
    if (k >= batch) return;  // whole warps leave together: only __syncwarp below
    double* s = tile[warp];
    const double* a_in = A + (long long)k * n * n;
    double* l_out = L + (long long)k * n * n;
    const int nn = n * n;

    // Element e = 32 t + lane of the matrix: every load in flight before the tile is written.
    double v[CHOL_MAX];
#pragma unroll
    for (int t = 0; t < CHOL_MAX; ++t) {
        const int e = t * 32 + lane, r = e / n, c = e - r * n;
        v[t] = e < nn && c <= r ? __ldg(a_in + e) : 0.0;
    }
#pragma unroll
    for (int t = 0; t < CHOL_MAX; ++t) {
        const int e = t * 32 + lane, r = e / n, c = e - r * n;
        if (e < nn && c <= r) s[r * CHOL_PITCH + c] = v[t];
    }
    __syncwarp();
    double a[CHOL_MAX];  // row `lane`: a[c] for c <= lane, zero above the diagonal
#pragma unroll
    for (int c = 0; c < CHOL_MAX; ++c) a[c] = c <= lane && lane < n ? s[lane * CHOL_PITCH + c] : 0.0;

#pragma unroll
    for (int j = 0; j < CHOL_MAX; ++j) {
        if (j >= n) break;  // uniform across the warp
        double* col = column[warp][j & 1];  // alternating buffers: one __syncwarp per column suffices
        col[lane] = a[j];                   // lane i > j: the updated a[i][j]; lane j: the pivot
        __syncwarp();
        const double p = col[j];
        const double inv = rsqrt(p);  // 1 / L[j][j]
        const double lij = a[j] * inv;
        const double f = lij * inv;  // L[i][j] / L[j][j]: times a[k][j] gives L[i][j] L[k][j]
        if (lane == j) a[j] = p * inv;
        if (lane > j) a[j] = lij;
#pragma unroll
        for (int k2 = (j + 1) / 2; k2 < CHOL_MAX / 2; ++k2) {
            const double2 c2 = reinterpret_cast<const double2*>(col)[k2];
            if (2 * k2 > j && 2 * k2 <= lane) a[2 * k2] = fma(-f, c2.x, a[2 * k2]);
            if (2 * k2 + 1 <= lane) a[2 * k2 + 1] = fma(-f, c2.y, a[2 * k2 + 1]);
        }
    }

    __syncwarp();  // every lane read its row out of the tile long ago; the tile now takes L
    if (lane < n) {
#pragma unroll
        for (int c = 0; c < CHOL_MAX; ++c) {
            if (c < n) s[lane * CHOL_PITCH + c] = a[c];
        }
    }
    __syncwarp();
#pragma unroll
    for (int t = 0; t < CHOL_MAX; ++t) {
        const int e = t * 32 + lane, r = e / n, c = e - r * n;
        if (e < nn) l_out[e] = s[r * CHOL_PITCH + c];
    }
}

void batched_cholesky_fp64(int batch, int n, const double* A, double* L) {
    if (batch <= 0 || n <= 0) return;
    const int blocks = (batch + CHOL_WARPS - 1) / CHOL_WARPS;
    if (n == CHOL_MAX)
        cholesky_rows_in_registers<CHOL_MAX><<<blocks, CHOL_WARPS * 32>>>(batch, n, A, L);
    else
        cholesky_rows_in_registers<0><<<blocks, CHOL_WARPS * 32>>>(batch, n, A, L);
}
