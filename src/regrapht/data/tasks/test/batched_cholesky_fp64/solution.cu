// steps: work_decomposition, memory_coalescing, shared_memory_tiling, bank_conflict_avoidance
// A warp per matrix (n <= 32): the warp copies the lower triangle into shared memory with
// consecutive lanes on consecutive elements, factors it there right-looking with lane i owning
// row i, and writes L back the same way. Rows are padded to 33 doubles so a column walk (lane i at
// row i) spreads over the banks.
#define CHOL_WARPS 4
#define CHOL_MAX 32
#define CHOL_PITCH 33

__global__ void __launch_bounds__(CHOL_WARPS * 32) cholesky_warp_per_matrix(int batch, int n, const double* __restrict__ A,
                                                                           double* __restrict__ L) {
    __shared__ double tile[CHOL_WARPS][CHOL_MAX * CHOL_PITCH];
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int k = blockIdx.x * CHOL_WARPS + warp;
    if (k >= batch) return;  // whole warps leave together: no block-wide barrier below
    double* s = tile[warp];
    const double* a = A + (long long)k * n * n;
    double* l = L + (long long)k * n * n;
    const int nn = n * n;
    for (int idx = lane; idx < nn; idx += 32) {
        int r = idx / n, c = idx - r * n;
        if (c <= r) s[r * CHOL_PITCH + c] = a[idx];
    }
    __syncwarp();
    for (int c = 0; c < n; ++c) {
        // Every lane reads the pivot (a broadcast) and takes its root: the same value everywhere.
        const double d = sqrt(s[c * CHOL_PITCH + c]);
        if (lane > c && lane < n) s[lane * CHOL_PITCH + c] /= d;
        __syncwarp();
        if (lane == c) s[c * CHOL_PITCH + c] = d;
        if (lane > c && lane < n) {
            // Trailing update of row `lane`: columns c+1..lane, in the serial order of subtractions.
            const double lic = s[lane * CHOL_PITCH + c];
            for (int j = c + 1; j <= lane; ++j) s[lane * CHOL_PITCH + j] -= lic * s[j * CHOL_PITCH + c];
        }
        __syncwarp();
    }
    for (int idx = lane; idx < nn; idx += 32) {
        int r = idx / n, c = idx - r * n;
        l[idx] = c <= r ? s[r * CHOL_PITCH + c] : 0.0;
    }
}

void batched_cholesky_fp64(int batch, int n, const double* A, double* L) {
    if (batch <= 0 || n <= 0) return;
    cholesky_warp_per_matrix<<<(batch + CHOL_WARPS - 1) / CHOL_WARPS, CHOL_WARPS * 32>>>(batch, n, A, L);
}
