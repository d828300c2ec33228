// steps: memory_coalescing, shared_memory_tiling, bank_conflict_avoidance, loop_unrolling
// A thread per row walks its row 8n bytes away from its neighbours' rows: every load and store of a
// warp touches 32 sectors. Here a block's 64 rows (one contiguous slab of A) come into shared memory
// with consecutive threads on consecutive elements, each thread rotates its row there carrying the
// running column in a register, and the slab goes back to B the same way. The row pitch is odd (in
// doubles), so a half-warp's 64-bit reads of 16 rows fall on distinct banks; the angles are a
// broadcast from shared memory. Shared memory caps a block at 64 rows of 8n bytes, so the block has
// twice as many threads as rows and each copies four elements per trip: enough loads in flight.
#define ROT_ROWS 64
#define ROT_THREADS 128
#define ROT_UNROLL 4

__global__ void __launch_bounds__(ROT_THREADS) rotate_slab(int m, int n, const double* __restrict__ c,
                                                       const double* __restrict__ s, const double* __restrict__ A,
                                                       double* __restrict__ B) {
    extern __shared__ double smem[];
    const int pitch = n | 1;
    double* slab = smem;
    double* cs = smem + ROT_ROWS * pitch;  // c[0..n-2] then s[0..n-2]
    const int r0 = blockIdx.x * ROT_ROWS;
    const int rows = min(ROT_ROWS, m - r0);
    const long long base = (long long)r0 * n;
    const int count = rows * n;
    for (int j = threadIdx.x; j + 1 < n; j += ROT_THREADS) {
        cs[j] = c[j];
        cs[n - 1 + j] = s[j];
    }
    for (int e0 = threadIdx.x; e0 < count; e0 += ROT_UNROLL * ROT_THREADS) {
        double v[ROT_UNROLL];
#pragma unroll
        for (int u = 0; u < ROT_UNROLL; ++u) {
            const int e = e0 + u * ROT_THREADS;
            v[u] = e < count ? A[base + e] : 0.0;
        }
#pragma unroll
        for (int u = 0; u < ROT_UNROLL; ++u) {
            const int e = e0 + u * ROT_THREADS, r = e / n;
            if (e < count) slab[r * pitch + (e - r * n)] = v[u];
        }
    }
    __syncthreads();
    if (threadIdx.x < rows) {
        double* row = slab + threadIdx.x * pitch;
        double carry = row[0];
        for (int j = 0; j + 1 < n; ++j) {
            const double cj = cs[j], sj = cs[n - 1 + j];
            const double t = row[j + 1];
            row[j] = sj * t + cj * carry;
            carry = cj * t - sj * carry;
        }
        row[n - 1] = carry;
    }
    __syncthreads();
    for (int e = threadIdx.x; e < count; e += ROT_THREADS) {
        const int r = e / n;
        B[base + e] = slab[r * pitch + (e - r * n)];
    }
}

void givens_sequence_rows_fp64(int m, int n, const double* c, const double* s, const double* A, double* B) {
    if (m <= 0 || n <= 0) return;
    const size_t shared = ((size_t)ROT_ROWS * (n | 1) + 2 * (size_t)n) * sizeof(double);  // <= 136 KB at n = 256
    static size_t opted = 48 * 1024;
    if (shared > opted) {
        cudaFuncSetAttribute(rotate_slab, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shared);
        opted = shared;
    }
    rotate_slab<<<(m + ROT_ROWS - 1) / ROT_ROWS, ROT_THREADS, shared>>>(m, n, c, s, A, B);
}
