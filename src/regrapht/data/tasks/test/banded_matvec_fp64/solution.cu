// steps: memory_coalescing, shared_memory_tiling, vectorized_access
// A thread per row reads its row of the band: 32 rows of a warp lie (kl+ku+1)*8 bytes apart, so each
// load touches 32 sectors and the L1 thrashes. Here a block's rows are one contiguous slab of ab:
// the block copies it into shared memory with consecutive threads on consecutive 16-byte pairs,
// then each thread sums its row from shared memory (an odd row pitch in doubles keeps a half-warp's
// 64-bit reads on distinct banks for the bench's w = 33).
#define BAND_ROWS 128

__global__ void __launch_bounds__(BAND_ROWS) band_slab(int n, int kl, int ku, const double* __restrict__ ab,
                                                      const double* __restrict__ x, double* __restrict__ y) {
    extern __shared__ __align__(16) double slab[];  // 16-byte aligned for the paired copy
    const int w = kl + ku + 1;
    const int row0 = blockIdx.x * BAND_ROWS;
    const int rows = min(BAND_ROWS, n - row0);
    const long long base = (long long)row0 * w;
    const int count = rows * w;
    // row0 * w is even (BAND_ROWS is), so the slab starts on a 16-byte boundary
    const double2* src = reinterpret_cast<const double2*>(ab + base);
    double2* dst = reinterpret_cast<double2*>(slab);
#pragma unroll 4
    for (int e = threadIdx.x; e < count / 2; e += BAND_ROWS) dst[e] = src[e];
    if ((count & 1) && threadIdx.x == 0) slab[count - 1] = ab[base + count - 1];
    __syncthreads();
    if (threadIdx.x >= rows) return;
    const int i = row0 + threadIdx.x;
    const double* band = slab + threadIdx.x * w;
    const int lo = max(0, i - kl), hi = min(n - 1, i + ku);
    double acc = 0.0;
#pragma unroll 4
    for (int j = lo; j <= hi; ++j) acc = fma(band[j - i + kl], __ldg(x + j), acc);
    y[i] = acc;
}

void banded_matvec_fp64(int n, int kl, int ku, const double* ab, const double* x, double* y) {
    if (n <= 0) return;
    const int w = kl + ku + 1;  // <= 65: the slab is at most 66.5 KB
    const size_t shared = (size_t)BAND_ROWS * w * sizeof(double);
    static size_t opted = 48 * 1024;
    if (shared > opted) {
        cudaFuncSetAttribute(band_slab, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shared);
        opted = shared;
    }
    band_slab<<<(n + BAND_ROWS - 1) / BAND_ROWS, BAND_ROWS, shared>>>(n, kl, ku, ab, x, y);
}
