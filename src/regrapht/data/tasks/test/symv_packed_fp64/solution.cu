// steps: memory_coalescing, shared_memory_tiling, bank_conflict_avoidance, split_k_decomposition
// The packed triangle is read once, in 128 x 128 super-tiles (I, J) with J <= I, a block each. A
// warp stages a 32 x 32 tile into shared memory row by row (32 consecutive packed elements: one
// coalesced 256-byte read) and then lane l sums both row l against x_J and column l against x_I,
// so each element serves y_i and y_j. Padded rows keep both walks on distinct banks. A super-tile's
// row sums land in partial[J][I-rows] and its column sums in partial[I][J-rows] (the diagonal one
// adds both into partial[I]): every (strip, i) slot is written exactly once, and a second kernel
// sums the strips in a fixed order, with no atomics to global memory.
#define SUPER 128
#define TILE 32
#define WARPS 8
#define PITCH (TILE + 1)

__global__ void __launch_bounds__(WARPS * 32) spmv_super_tiles(int n, const double* __restrict__ ap,
                                                              const double* __restrict__ x,
                                                              double* __restrict__ partial) {
    extern __shared__ double smem[];  // WARPS tiles, then the row and column sums: 69.6 KB
    double* row_acc = smem + WARPS * TILE * PITCH;
    double* col_acc = row_acc + SUPER;
    // blockIdx.x enumerates the lower triangle of super-tiles row by row
    const long long t = blockIdx.x;
    int I = (int)((sqrt(8.0 * (double)t + 1.0) - 1.0) * 0.5);
    while ((long long)(I + 1) * (I + 2) / 2 <= t) ++I;
    while ((long long)I * (I + 1) / 2 > t) --I;
    const int J = (int)(t - (long long)I * (I + 1) / 2);
    const int I0 = I * SUPER, J0 = J * SUPER;
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    for (int k = threadIdx.x; k < SUPER; k += WARPS * 32) row_acc[k] = col_acc[k] = 0.0;
    __syncthreads();
    double* tile = smem + warp * TILE * PITCH;
    // warp w: tile row w / 2, tile columns 2 (w % 2) and 2 (w % 2) + 1
    const int tr = warp >> 1;
    const int i0 = I0 + tr * TILE;
    double my_row = 0.0;
    const double xi = i0 + lane < n ? x[i0 + lane] : 0.0;  // x of tile row `lane`
    for (int h = 0; h < 2; ++h) {
        const int tc = (warp & 1) * 2 + h;
        if (I == J && tc > tr) break;  // above the diagonal: not stored
        const int j0 = J0 + tc * TILE;
        const bool diagonal = I == J && tc == tr;
#pragma unroll 8
        for (int r = 0; r < TILE; ++r) {
            const int i = i0 + r, j = j0 + lane;
            double a = 0.0;
            if (i < n && j <= i) a = ap[(long long)i * (i + 1) / 2 + j];
            tile[r * PITCH + lane] = a;
        }
        __syncwarp();
        const double xj = j0 + lane < n ? x[j0 + lane] : 0.0;
        double rsum = 0.0, csum = 0.0;
#pragma unroll 8
        for (int k = 0; k < TILE; ++k) {
            rsum = fma(tile[lane * PITCH + k], __shfl_sync(0xffffffffu, xj, k), rsum);
            // the diagonal tile's column walk stops above the diagonal: A[i][i] counts once
            const double aki = (!diagonal || k > lane) ? tile[k * PITCH + lane] : 0.0;
            csum = fma(aki, __shfl_sync(0xffffffffu, xi, k), csum);
        }
        my_row += rsum;
        atomicAdd(&col_acc[tc * TILE + lane], csum);  // shared memory: four warps share a column
        __syncwarp();
    }
    atomicAdd(&row_acc[tr * TILE + lane], my_row);  // two warps share a tile row
    __syncthreads();
    for (int k = threadIdx.x; k < SUPER; k += WARPS * 32) {
        if (I == J) {
            if (I0 + k < n) partial[(long long)I * n + I0 + k] = row_acc[k] + col_acc[k];
        } else {
            if (I0 + k < n) partial[(long long)J * n + I0 + k] = row_acc[k];
            if (J0 + k < n) partial[(long long)I * n + J0 + k] = col_acc[k];
        }
    }
}

__global__ void sum_strips(int n, int strips, const double* __restrict__ partial, double* __restrict__ y) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double acc = 0.0;
    for (int s = 0; s < strips; ++s) acc += partial[(long long)s * n + i];
    y[i] = acc;
}

void symv_packed_fp64(int n, const double* ap, const double* x, double* y) {
    if (n <= 0) return;
    static double* partial = nullptr;
    static long long capacity = 0;
    const int strips = (n + SUPER - 1) / SUPER;
    const long long need = (long long)strips * n;
    if (need > capacity) {
        if (partial) cudaFree(partial);
        cudaMalloc(&partial, need * sizeof(double));
        capacity = need;
    }
    const int shared = (WARPS * TILE * PITCH + 2 * SUPER) * (int)sizeof(double);
    static bool opted = false;
    if (!opted) {
        cudaFuncSetAttribute(spmv_super_tiles, cudaFuncAttributeMaxDynamicSharedMemorySize, shared);
        opted = true;
    }
    const long long blocks = (long long)strips * (strips + 1) / 2;
    spmv_super_tiles<<<(unsigned)blocks, WARPS * 32, shared>>>(n, ap, x, partial);
    sum_strips<<<(n + 127) / 128, 128>>>(n, strips, partial, y);
}
